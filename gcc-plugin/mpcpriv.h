// Internal header of the privatization plugin: the GCC headers it needs, in the order GCC requires, and
// the state shared by its three parts (options in mpcpriv.cc, decisions in classify.cc, the access
// rewrite in rewrite.cc).
#ifndef MPCRT_MPCPRIV_H
#define MPCRT_MPCPRIV_H

#define INCLUDE_STRING
#define INCLUDE_VECTOR
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "gimple-iterator.h"
#include "gimplify.h"
#include "gimplify-me.h"
#include "cgraph.h"
#include "stringpool.h"
#include "attribs.h"
#include "varasm.h"
#include "output.h"
#include "fold-const.h"
#include "stor-layout.h"
#include "diagnostic-core.h"
#include "langhooks.h"
#include "tree-iterator.h"
#include "ssa.h"

#include "mpcrt/priv_abi.h"

namespace mpcpriv {

enum class level { none, task, ult };

struct options {
    bool verbose = false;
    std::vector<std::string> excludes; // fnmatch patterns on source paths or variable names
};

extern options opts;

// Decisions, made once per translation unit at PLUGIN_ALL_IPA_PASSES_START.
void classify_translation_unit(void *gcc_data, void *user_data);
level level_of(tree decl);
bool is_weak_extern(tree decl);

// The GIMPLE pass that rewrites accesses; inserted before "ssa".
gimple_opt_pass *make_rewrite_pass(gcc::context *ctxt);

} // namespace mpcpriv

#endif
