/* User-level context switch for x86-64 (System V ABI): saves the callee-saved registers, MXCSR and the
 * x87 control word on the outgoing stack, stores the stack pointer, and resumes the incoming stack.
 * No syscall and no signal mask: ULTs share the VP's signal state. The incoming MXCSR and control word are
 * loaded only when they differ from the current ones: ldmxcsr and fldcw can stall the pipeline, and ULTs
 * almost never change rounding or exception masks (a same-core ping-pong hop did not get measurably faster,
 * 0.073 vs 0.074 us, but perf had sampled most of the switch's time next to them). */
    .text

/* void mpcrt_ctx_switch(void **save_sp, void *load_sp) */
    .globl  mpcrt_ctx_switch
    .hidden mpcrt_ctx_switch
    .type   mpcrt_ctx_switch, @function
    .p2align 4
mpcrt_ctx_switch:
    .cfi_startproc
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movl    (%rsp), %eax
    movzwl  4(%rsp), %ecx
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    movq    mpcrt_ctx_switched@gottpoff(%rip), %rdx
    movb    $1, %fs:(%rdx)
    cmpl    (%rsp), %eax
    jne     2f
1:  cmpw    4(%rsp), %cx
    jne     3f
4:  .cfi_remember_state
    addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
    .cfi_restore_state
2:  ldmxcsr (%rsp)
    jmp     1b
3:  fldcw   4(%rsp)
    jmp     4b
    .cfi_endproc
    .size   mpcrt_ctx_switch, .-mpcrt_ctx_switch

/* The return thunk of the functions marked MPCRT_RETURNS_AFTER_SWITCH (sched.h): GCC ends them with a jump
 * here, the return address on top of the stack. Entered by a jump, its `ret` is predicted as the function's
 * own was; after a switch on this kernel thread, whose predictor then holds the previous ULT's return
 * addresses, it returns by an indirect jump instead, predicted from the branch's history. rax and rdx hold
 * the result; rcx and r11 are free at a return. */
    .globl  __x86_return_thunk
    .hidden __x86_return_thunk
    .type   __x86_return_thunk, @function
    .p2align 4
__x86_return_thunk:
    .cfi_startproc
    movq    mpcrt_ctx_switched@gottpoff(%rip), %r11
    cmpb    $0, %fs:(%r11)
    jne     1f
    ret
1:  movb    $0, %fs:(%r11)
    popq    %rcx
    .cfi_adjust_cfa_offset -8
    .cfi_register rip, rcx
    jmp     *%rcx
    .cfi_endproc
    .size   __x86_return_thunk, .-__x86_return_thunk

/* First code run by a new context: the frame built by mpcrt_ctx_make holds the entry function in r13 and
 * its argument in r12. The entry never returns. */
    .globl  mpcrt_ctx_trampoline
    .hidden mpcrt_ctx_trampoline
    .type   mpcrt_ctx_trampoline, @function
    .p2align 4
mpcrt_ctx_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq    %r12, %rdi
    callq   *%r13
    ud2
    .cfi_endproc
    .size   mpcrt_ctx_trampoline, .-mpcrt_ctx_trampoline

    .section .note.GNU-stack, "", @progbits
