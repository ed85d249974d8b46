// What the plugin privatizes, decided once per translation unit at PLUGIN_ALL_IPA_PASSES_START (after
// lowering, so the varpool holds every referenced variable and the IPA reference lists exist; not run
// in lto1). Also places privatized definitions in their sections and emits the per-TU tables the runtime
// needs: relocations of initializers holding privatized addresses, the extern check list, and the C++
// dynamic initializers to run once per rank.
#include "mpcpriv.h"

#include <fnmatch.h>

namespace mpcpriv {

static hash_map<tree, int> *decisions;
static bool warned_const_image;

level level_of(tree decl)
{
    if (!decisions)
        return level::none;
    int *found = decisions->get(decl);
    return found ? static_cast<level>(*found) : level::none;
}

bool is_weak_extern(tree decl)
{
    return DECL_EXTERNAL(decl) && DECL_WEAK(decl);
}

static const char *name_of(tree decl)
{
    if (DECL_ASSEMBLER_NAME_SET_P(decl))
        return IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
    return DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl)) : "";
}

static bool reserved_name(const char *name)
{
    return !strncmp(name, "__mpc_", 6) || !strncmp(name, "__start_", 8) || !strncmp(name, "__stop_", 7) ||
           !strcmp(name, "__dso_handle");
}

static bool matches(const std::string &pattern, const char *text)
{
    if (!text || !*text)
        return false;
    if (fnmatch(pattern.c_str(), text, 0) == 0)
        return true;
    // A pattern without wildcards also matches as a path prefix ("third_party/" excludes a tree).
    return pattern.find_first_of("*?[") == std::string::npos && !strncmp(text, pattern.c_str(), pattern.size());
}

static bool excluded_by_option(tree decl)
{
    const char *name = DECL_NAME(decl) ? IDENTIFIER_POINTER(DECL_NAME(decl)) : "";
    const char *file = DECL_SOURCE_FILE(decl);
    for (const std::string &pattern : opts.excludes)
        if (matches(pattern, name) || matches(pattern, name_of(decl)) || matches(pattern, file))
            return true;
    return false;
}

static bool marked_shared(tree decl)
{
    return lookup_attribute("mpc_shared", DECL_ATTRIBUTES(decl)) ||
           lookup_attribute("mpcrt_shared", DECL_ATTRIBUTES(decl));
}

// True if nothing in this TU stores to the variable or takes its address.
static bool only_loaded(varpool_node *node)
{
    if (TREE_ADDRESSABLE(node->decl))
        return false;
    ipa_ref *ref;
    for (unsigned i = 0; node->iterate_referring(i, ref); i++)
        if (ref->use != IPA_REF_LOAD)
            return false;
    return true;
}

static tree find_task_address(tree *tp, int *walk_subtrees, void *)
{
    if (TYPE_P(*tp)) {
        *walk_subtrees = 0;
        return NULL_TREE;
    }
    if (TREE_CODE(*tp) == ADDR_EXPR) {
        tree base = get_base_address(TREE_OPERAND(*tp, 0));
        if (base && VAR_P(base) && level_of(base) == level::task)
            return *tp;
    }
    return NULL_TREE;
}

static bool initializer_holds_task_address(tree decl)
{
    tree init = DECL_INITIAL(decl);
    if (!init || init == error_mark_node)
        return false;
    return walk_tree_without_duplicates(&init, find_task_address, NULL) != NULL_TREE;
}

enum class first_look { none, task, ult, load_only_static };

static first_look look(varpool_node *node)
{
    tree decl = node->decl;
    if (!VAR_P(decl) || !(TREE_STATIC(decl) || DECL_EXTERNAL(decl)))
        return first_look::none;
    if (DECL_HARD_REGISTER(decl) || marked_shared(decl) || reserved_name(name_of(decl)))
        return first_look::none;
    if (DECL_IN_SYSTEM_HEADER(decl) || (DECL_EXTERNAL(decl) && DECL_ARTIFICIAL(decl)))
        return first_look::none; // libc's stdout, environ, optind...; compiler-declared externs
    if (DECL_SECTION_NAME(decl) || DECL_HAS_VALUE_EXPR_P(decl) || excluded_by_option(decl))
        return first_look::none;
    if (DECL_THREAD_LOCAL_P(decl))
        return first_look::ult;
    if (TREE_READONLY(decl))
        return first_look::none; // constants stay shared; compiler images are reconsidered below
    if (!TREE_PUBLIC(decl) && !DECL_EXTERNAL(decl) && !TREE_THIS_VOLATILE(decl) && !DECL_PRESERVE_P(decl) &&
        only_loaded(node))
        return first_look::load_only_static; // same value in every rank: keep it (and constant folding)
    return first_look::task;
}

// ------------------------------------------------------------------ tables

typedef std::vector<std::pair<tree, HOST_WIDE_INT>> address_list;

static void emit_table(const char *section, const char *prefix, const address_list &entries)
{
    if (entries.empty())
        return;
    static int serial;
    tree type = build_array_type_nelts(ptr_type_node, entries.size());
    vec<constructor_elt, va_gc> *elts = NULL;
    for (size_t i = 0; i < entries.size(); i++) {
        tree addr = fold_convert(ptr_type_node, build_fold_addr_expr(entries[i].first));
        if (entries[i].second)
            addr = fold_build_pointer_plus_hwi(addr, entries[i].second);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(i), addr);
    }
    char name[64];
    snprintf(name, sizeof name, "%s.%d", prefix, serial++);
    tree table = build_decl(BUILTINS_LOCATION, VAR_DECL, get_identifier(name), type);
    TREE_STATIC(table) = 1;
    TREE_PUBLIC(table) = 0;
    DECL_ARTIFICIAL(table) = 1;
    DECL_IGNORED_P(table) = 1;
    TREE_USED(table) = 1;
    DECL_PRESERVE_P(table) = 1; // nothing references it; the linker script keeps the section
    DECL_INITIAL(table) = build_constructor(type, elts);
    TREE_STATIC(DECL_INITIAL(table)) = 1;
    set_decl_section_name(table, section);
    varpool_node::finalize_decl(table);
    varpool_node *node = varpool_node::get(table);
    node->force_output = true;
    node->analyze(); // finalize_decl only analyzes during construction, which is over here
}

// Offsets, within a privatized definition, of the slots whose initial value is a task address.
static void collect_slots(tree value, HOST_WIDE_INT offset, std::vector<HOST_WIDE_INT> &slots)
{
    if (!value)
        return;
    switch (TREE_CODE(value)) {
    case CONSTRUCTOR: {
        tree type = TREE_TYPE(value);
        unsigned i;
        tree index, element;
        if (RECORD_OR_UNION_TYPE_P(type)) {
            FOR_EACH_CONSTRUCTOR_ELT(CONSTRUCTOR_ELTS(value), i, index, element) {
                if (!index || TREE_CODE(index) != FIELD_DECL || DECL_BIT_FIELD(index))
                    continue;
                collect_slots(element, offset + int_byte_position(index), slots);
            }
        } else if (TREE_CODE(type) == ARRAY_TYPE || TREE_CODE(type) == VECTOR_TYPE) {
            tree element_size = TYPE_SIZE_UNIT(TREE_TYPE(type));
            if (!element_size || !tree_fits_shwi_p(element_size))
                return;
            HOST_WIDE_INT size = tree_to_shwi(element_size), low = 0;
            if (TREE_CODE(type) == ARRAY_TYPE && TYPE_DOMAIN(type) && TYPE_MIN_VALUE(TYPE_DOMAIN(type)) &&
                tree_fits_shwi_p(TYPE_MIN_VALUE(TYPE_DOMAIN(type))))
                low = tree_to_shwi(TYPE_MIN_VALUE(TYPE_DOMAIN(type)));
            HOST_WIDE_INT next = low;
            FOR_EACH_CONSTRUCTOR_ELT(CONSTRUCTOR_ELTS(value), i, index, element) {
                HOST_WIDE_INT first = next, last = next;
                if (index && TREE_CODE(index) == RANGE_EXPR) {
                    first = tree_to_shwi(TREE_OPERAND(index, 0));
                    last = tree_to_shwi(TREE_OPERAND(index, 1));
                } else if (index && tree_fits_shwi_p(index)) {
                    first = last = tree_to_shwi(index);
                }
                for (HOST_WIDE_INT k = first; k <= last; k++)
                    collect_slots(element, offset + (k - low) * size, slots);
                next = last + 1;
            }
        }
        return;
    }
    case ADDR_EXPR: {
        tree base = get_base_address(TREE_OPERAND(value, 0));
        if (base && VAR_P(base) && level_of(base) == level::task)
            slots.push_back(offset);
        return;
    }
    case POINTER_PLUS_EXPR:
    case PLUS_EXPR:
    case MINUS_EXPR:
    case NOP_EXPR:
    case CONVERT_EXPR:
    case VIEW_CONVERT_EXPR:
    case NON_LVALUE_EXPR:
        collect_slots(TREE_OPERAND(value, 0), offset, slots);
        return;
    default:
        return;
    }
}

// ------------------------------------------------------------------ placement

static void place(tree decl, level lvl)
{
    if (lvl == level::ult)
        set_decl_tls_model(decl, TLS_MODEL_NONE); // accessed through __mpc_ult_delta instead
    if (DECL_EXTERNAL(decl))
        return;
    if (DECL_IN_CONSTANT_POOL(decl))
        DECL_IN_CONSTANT_POOL(decl) = 0; // a compiler-made image holding task addresses: a real variable
    TREE_READONLY(decl) = 0;             // writable section (relocated per rank)
    bool zero = bss_initializer_p(decl, true);
    // COMMON (Fortran blocks, -fcommon) and COMDAT (C++ inline, template and guard variables) cannot stay
    // as such in a named section: COMMON cannot be placed at all, and a COMDAT group needs a section of
    // its own whose name LTO drops when it localizes the symbol. Both become weak definitions in the
    // shared section: the linker keeps one (the others stay as unused bytes), references bind to it.
    varpool_node *node = varpool_node::get(decl);
    if (DECL_COMMON(decl) || (node && node->get_comdat_group())) {
        DECL_COMMON(decl) = 0;
        if (node && node->get_comdat_group()) {
            node->dissolve_same_comdat_group_list();
            node->set_comdat_group(NULL_TREE);
        }
        DECL_COMDAT(decl) = 0;
        DECL_WEAK(decl) = 1;
    }
    std::string section = lvl == level::ult ? MPCRT_ULT_SECTION
                          : zero             ? MPCRT_PRIV_BSS_SECTION
                                             : MPCRT_PRIV_SECTION;
    set_decl_section_name(decl, section.c_str());
    if (opts.verbose)
        inform(DECL_SOURCE_LOCATION(decl), "mpcpriv: %qD privatized per %s", decl,
               lvl == level::ult ? "user-level thread" : "rank");
}

static bool is_static_initializer(cgraph_node *node)
{
    tree fn = node->decl;
    const char *name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fn));
    return DECL_STATIC_CONSTRUCTOR(fn) && !strncmp(name, "_GLOBAL__sub_I_", 15);
}

void classify_translation_unit(void *, void *)
{
    // In lto1 (the plugin is also passed there when mpcc compiles and links -flto in one command) every
    // decision was made at compile time and streamed with the IR: doing it again would duplicate tables.
    if (seen_error() || in_lto_p)
        return;
    if (!decisions)
        decisions = new hash_map<tree, int>;
    varpool_node *node;
    auto_vec<varpool_node *> load_only;
    FOR_EACH_VARIABLE(node) {
        switch (look(node)) {
        case first_look::task:
            decisions->put(node->decl, (int)level::task);
            break;
        case first_look::ult:
            decisions->put(node->decl, (int)level::ult);
            break;
        case first_look::load_only_static:
            load_only.safe_push(node);
            break;
        case first_look::none:
            break;
        }
    }
    // Statics that hold task addresses must be per rank too, or they would point into the master copy:
    // never-written ones, and compiler-made constant images (-Os aggregate initializers). Repeat until
    // stable, since such a static may itself be pointed to.
    for (bool changed = true; changed;) {
        changed = false;
        FOR_EACH_VARIABLE(node) {
            tree decl = node->decl;
            if (level_of(decl) != level::none || DECL_EXTERNAL(decl) || !VAR_P(decl) || !TREE_STATIC(decl))
                continue;
            bool candidate = load_only.contains(node) ||
                             (TREE_READONLY(decl) && DECL_ARTIFICIAL(decl) && !TREE_PUBLIC(decl) &&
                              !DECL_SECTION_NAME(decl) && !marked_shared(decl));
            if (!initializer_holds_task_address(decl))
                continue;
            if (candidate) {
                decisions->put(decl, (int)level::task);
                changed = true;
            } else if (TREE_READONLY(decl) && !warned_const_image && !DECL_IN_SYSTEM_HEADER(decl)) {
                warning_at(DECL_SOURCE_LOCATION(decl), 0,
                           "mpcpriv: constant %qD holds the address of privatized data; it will point to "
                           "the master copy (drop %<const%> to privatize it)",
                           decl);
            }
        }
    }

    address_list task_rel, ult_rel, task_chk, ult_chk, inits;
    bool defines_task_data = false;
    for (auto entry : *decisions) {
        tree decl = entry.first;
        level lvl = static_cast<level>(entry.second);
        if (!varpool_node::get(decl))
            continue; // from an earlier TU of this compilation (none in C/C++/Fortran)
        place(decl, lvl);
        // Public names are checked at start-up: the definition that wins at link or load time may come
        // from a file compiled without the plugin (or sit behind a copy relocation).
        if (TREE_PUBLIC(decl) && !is_weak_extern(decl))
            (lvl == level::ult ? ult_chk : task_chk).push_back({decl, 0});
        if (DECL_EXTERNAL(decl))
            continue;
        defines_task_data |= lvl == level::task;
        std::vector<HOST_WIDE_INT> slots;
        collect_slots(DECL_INITIAL(decl), 0, slots);
        for (HOST_WIDE_INT offset : slots)
            (lvl == level::ult ? ult_rel : task_rel).push_back({decl, offset});
    }
    if (defines_task_data) {
        cgraph_node *fn;
        FOR_EACH_DEFINED_FUNCTION(fn)
        if (is_static_initializer(fn))
            inits.push_back({fn->decl, 0});
    }
    emit_table(MPCRT_PRIV_REL_SECTION, "__mpc_priv_rel", task_rel);
    emit_table(MPCRT_ULT_REL_SECTION, "__mpc_ult_rel", ult_rel);
    emit_table(MPCRT_PRIV_CHK_SECTION, "__mpc_priv_chk", task_chk);
    emit_table(MPCRT_ULT_CHK_SECTION, "__mpc_ult_chk", ult_chk);
    emit_table(MPCRT_PRIV_INIT_SECTION, "__mpc_priv_init", inits);
}

} // namespace mpcpriv
