// The GIMPLE pass that rewrites every access to a privatized variable g into an access through
// &g + delta, where delta is __mpc_priv_delta (per rank) or __mpc_ult_delta (per user-level thread),
// loaded once at function entry into a temporary. Runs before "ssa": the body is lowered and has a CFG
// but no SSA form yet, so new statements use plain temporaries that into-SSA renames.
#include "mpcpriv.h"

namespace mpcpriv {

static tree delta_decl(level lvl)
{
    static tree decls[2];
    tree &decl = decls[lvl == level::ult];
    if (!decl) {
        const char *name = lvl == level::ult ? MPCRT_ULT_DELTA_SYMBOL : MPCRT_PRIV_DELTA_SYMBOL;
        decl = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name), sizetype);
        DECL_EXTERNAL(decl) = 1;
        TREE_PUBLIC(decl) = 1;
        DECL_ARTIFICIAL(decl) = 1;
        TREE_USED(decl) = 1;
        set_decl_tls_model(decl, TLS_MODEL_INITIAL_EXEC);
        varpool_node::get_create(decl);
    }
    return decl;
}

struct function_state {
    function *fun;
    tree delta[2] = {NULL_TREE, NULL_TREE}; // temporaries holding the deltas, loaded at entry
    gimple_stmt_iterator *gsi = NULL;       // the statement being rewritten
    bool changed = false;
};

static tree delta_of(function_state &st, level lvl)
{
    tree &tmp = st.delta[lvl == level::ult];
    if (!tmp) {
        tmp = create_tmp_reg(sizetype, lvl == level::ult ? "mpc_dult" : "mpc_dtask");
        gimple *load = gimple_build_assign(tmp, delta_decl(lvl));
        gsi_insert_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(st.fun)), load);
    }
    return tmp;
}

// A register holding this rank's (or ULT's) address of decl, computed just before the statement.
static tree copy_address(function_state &st, tree decl)
{
    level lvl = level_of(decl);
    tree delta = delta_of(st, lvl);
    tree master = build_fold_addr_expr(decl);
    if (is_weak_extern(decl)) {
        // An undefined weak symbol has address 0 and must keep it: delta & -(size_t)(&g != 0).
        tree defined = fold_build2(NE_EXPR, boolean_type_node, master, null_pointer_node);
        tree mask = fold_build1(NEGATE_EXPR, sizetype, fold_convert(sizetype, defined));
        delta = fold_build2(BIT_AND_EXPR, sizetype, delta, mask);
    }
    tree address = fold_build_pointer_plus(master, delta);
    return force_gimple_operand_gsi(st.gsi, address, true, NULL_TREE, true, GSI_SAME_STMT);
}

static tree memory_of(function_state &st, tree decl)
{
    tree address = copy_address(st, decl);
    // Keep the declared alignment on the access: vectorized loops over privatized arrays stay aligned.
    tree type = build_aligned_type(TREE_TYPE(decl), DECL_ALIGN(decl));
    tree mem = build2(MEM_REF, type, address, build_int_cst(build_pointer_type(TREE_TYPE(decl)), 0));
    TREE_THIS_VOLATILE(mem) = TREE_THIS_VOLATILE(decl);
    TREE_SIDE_EFFECTS(mem) = TREE_SIDE_EFFECTS(decl);
    return mem;
}

static bool privatized(tree t)
{
    return t && VAR_P(t) && level_of(t) != level::none;
}

// Replaces the base variable of a reference tree (inside an ADDR_EXPR operand) by its copy.
static tree replace_base(tree *tp, int *walk_subtrees, void *data)
{
    function_state &st = *static_cast<function_state *>(data);
    if (TYPE_P(*tp)) {
        *walk_subtrees = 0;
    } else if (privatized(*tp)) {
        *tp = memory_of(st, *tp);
        *walk_subtrees = 0;
    }
    return NULL_TREE;
}

static tree rewrite_operand(tree *tp, int *walk_subtrees, void *data)
{
    function_state &st = *static_cast<function_state *>(data);
    tree t = *tp;
    if (TYPE_P(t)) {
        *walk_subtrees = 0;
        return NULL_TREE;
    }
    if (privatized(t)) {
        *tp = memory_of(st, t);
        *walk_subtrees = 0;
        st.changed = true;
        return NULL_TREE;
    }
    if (TREE_CODE(t) == ADDR_EXPR && privatized(get_base_address(TREE_OPERAND(t, 0)))) {
        // &g, &s.f, &a[i]: rebuild on the copy; the result is no longer invariant, so it goes into a
        // register computed before the statement.
        tree reference = unshare_expr(TREE_OPERAND(t, 0));
        walk_tree(&reference, replace_base, &st, NULL);
        tree address = build_fold_addr_expr_with_type(reference, TREE_TYPE(t));
        *tp = force_gimple_operand_gsi(st.gsi, address, true, NULL_TREE, true, GSI_SAME_STMT);
        *walk_subtrees = 0;
        st.changed = true;
    }
    return NULL_TREE;
}

static unsigned rewrite_function(function *fun)
{
    function_state st;
    st.fun = fun;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) {
        for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
            gimple *stmt = gsi_stmt(gsi);
            if (is_gimple_debug(stmt))
                continue;
            st.gsi = &gsi;
            st.changed = false;
            for (unsigned i = 0; i < gimple_num_ops(stmt); i++) {
                tree *op = gimple_op_ptr(stmt, i);
                if (*op)
                    walk_tree(op, rewrite_operand, &st, NULL);
            }
            if (st.changed)
                update_stmt(stmt);
        }
    }
    return 0;
}

static const pass_data rewrite_pass_data = {
    GIMPLE_PASS,
    "mpcpriv",
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any | PROP_cfg,
    0,
    0,
    0,
    0,
};

class rewrite_pass : public gimple_opt_pass
{
  public:
    rewrite_pass(gcc::context *ctxt) : gimple_opt_pass(rewrite_pass_data, ctxt) {}
    bool gate(function *) final override { return !seen_error() && !in_lto_p; }
    unsigned int execute(function *fun) final override { return rewrite_function(fun); }
};

gimple_opt_pass *make_rewrite_pass(gcc::context *ctxt)
{
    return new rewrite_pass(ctxt);
}

} // namespace mpcpriv
