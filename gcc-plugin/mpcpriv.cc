// GCC 12 plugin behind `mpcc -fmpc-privatize` (DESIGN.md section 5): makes every writable global and
// static of a translation unit one copy per MPI rank, and every __thread/threadprivate variable one copy
// per user-level thread. This file registers the plugin's callbacks, its attributes and options.
//
// Arguments (-fplugin-arg-mpcpriv-NAME[=VALUE]): verbose (list every privatized variable with its
// location), exclude=PATTERN[:PATTERN...] (leave variables whose name or source file matches shared).
#include "mpcpriv.h"

#include <fnmatch.h>

int plugin_is_GPL_compatible;

namespace mpcpriv {
options opts;
}

using namespace mpcpriv;

static tree accept_shared_attribute(tree *node, tree name, tree, int, bool *no_add_attrs)
{
    if (TREE_CODE(*node) != VAR_DECL) {
        warning(OPT_Wattributes, "%qE attribute only applies to variables", name);
        *no_add_attrs = true;
    }
    return NULL_TREE;
}

// Both spellings: mpc_shared (as in MPC and the prototype) and mpcrt_shared (DESIGN.md).
static struct attribute_spec shared_attributes[] = {
    {"mpc_shared", 0, 0, true, false, false, false, accept_shared_attribute, NULL},
    {"mpcrt_shared", 0, 0, true, false, false, false, accept_shared_attribute, NULL},
};

static void register_attributes(void *, void *)
{
    for (auto &spec : shared_attributes)
        register_attribute(&spec);
}

static void split_patterns(const char *text)
{
    std::string current;
    for (const char *p = text;; p++) {
        if (*p == ':' || *p == ',' || *p == '\0') {
            if (!current.empty())
                opts.excludes.push_back(current);
            current.clear();
            if (!*p)
                break;
        } else {
            current += *p;
        }
    }
}

int plugin_init(struct plugin_name_args *info, struct plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("mpcpriv: this plugin was built for GCC %s and cannot run in this compiler",
              gcc_version.basever);
        return 1;
    }
    for (int i = 0; i < info->argc; i++) {
        const char *key = info->argv[i].key, *value = info->argv[i].value;
        if (!strcmp(key, "verbose")) {
            opts.verbose = true;
        } else if (!strcmp(key, "exclude") && value) {
            split_patterns(value);
        } else {
            error("mpcpriv: unknown plugin argument %qs (expected verbose or exclude=PATTERNS)", key);
            return 1;
        }
    }
    static struct plugin_info about = {"0.1", "privatizes globals per MPI rank for mpcrt (mpcc -fmpc-privatize)"};
    register_callback(info->base_name, PLUGIN_INFO, NULL, &about);
    register_callback(info->base_name, PLUGIN_ATTRIBUTES, register_attributes, NULL);
    register_callback(info->base_name, PLUGIN_ALL_IPA_PASSES_START, classify_translation_unit, NULL);

    // Before "ssa" (instance 1, in build_ssa_passes): after OpenMP expansion, so outlined bodies are
    // rewritten too; before inlining, IPA and LTO streaming; at every -O level.
    struct register_pass_info pass;
    pass.pass = make_rewrite_pass(g);
    pass.reference_pass_name = "ssa";
    pass.ref_pass_instance_number = 1;
    pass.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
    return 0;
}
