/* User-level context switch for x86-64 (System V ABI): saves the callee-saved registers, MXCSR and the
 * x87 control word on the outgoing stack, stores the stack pointer, and resumes the incoming stack with its
 * own MXCSR and control word (the ABI makes their control bits callee-saved, so each ULT keeps its rounding
 * and exception masks). No syscall and no signal mask: ULTs share the VP's signal state.
 * The incoming values are loaded unconditionally. Loading them only when they differed from the outgoing
 * ones read the just-stored MXCSR back, and that read cost 2.5 ns per switch; the loads cost 0.7 (same-core
 * ping-pong hop 0.0305 -> 0.0286 us, against 0.0275 with no FP environment at all). */
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
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    movq    mpcrt_ctx_switched@gottpoff(%rip), %rdx
    movb    $1, %fs:(%rdx)
    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    addq    $8, %rsp
    popq    %r15
    popq    %r14
    popq    %r13
    popq    %r12
    popq    %rbx
    popq    %rbp
    ret
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
