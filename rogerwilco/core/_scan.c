/* The accept path in C: one generic scanner, driven by tables built at run time.
 *
 * Theory of operation
 * -------------------
 * rogerwilco/core/scanner.py compiles each message type of a Vocabulary (the
 * accept path's TypePlan, rogerwilco/core/accept.py) into a Plan: per key, a
 * Spec saying how its value is checked and decoded (kept as written, one of a
 * set of codes, an agent, a msgid, a date, a time, money, a number, a digest,
 * Y/N, an integer in a range, days, a constraint, a list of one of these, or
 * "call the Python decoder"), the number of required keys, the type's rules
 * (the Python closures of accept.compile_rule) and the tail's limit. Nothing in
 * this file knows a profile, a type or a key.
 *
 * A set of codes is also held as a table from a code's text to the vocabulary's own string (CodeTable), so a
 * value that is one of them is that string, with no new str made and hashed. A Message and a JSON form hold
 * re, from, to and item apart from the other slots: where no rule of the type reads one of them from the
 * values dict, the scanner keeps them apart as it reads them (Plan.head_apart), else it takes them out of
 * the dict after the rules.
 *
 * scan() reads one line and answers its Message, or None: "not sure", and the
 * Python accept path and the full pass decide (they stay the reference and word
 * every finding). It settles a line only where it is sure the Python path
 * accepts it and decodes the same values; every native check accepts a subset
 * of what the Python decoder accepts, and anything else is handed to that
 * decoder (tests/test_scanner.py holds the two to it, line by line).
 *
 * fault() reads a line scan() declined once more and names its first fault where it is sure of it (a
 * syntax fault's column and expected terminals, a repeated key), for Python to word; else None.
 *
 * Hostile input: every index is a Py_ssize_t within the line's length, checked
 * before it is read; numbers are parsed natively only up to 18 digits (longer
 * ones go to the Python decoder); no buffer is sized by the input.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <string.h>

#include "_scan_classes.h"

/* The stamp of the sources it was built from, _scan.c then _scan_classes.h (hatch_build.py passes it;
 * rogerwilco.core.scanner leaves a build of other sources unused). */
#ifndef RW1_BUILT_FROM
#define RW1_BUILT_FROM ""
#endif

enum {
    K_KEEP, K_SET, K_AGENT, K_MSGID, K_DATE, K_TIME, K_MONEY, K_NUM, K_DIGEST,
    K_BOOL, K_INT, K_DAYS, K_CONSTRAINT, K_LIST, K_CALL, K_COUNT
};

#define KEY_MAX 64          /* a key longer than this is looked up by the Python path */
#define TABLE_BITS 10
#define TABLE_SIZE (1 << TABLE_BITS)   /* open addressing: at most TABLE_SIZE / 2 keys per plan */
#define NATIVE_DIGITS 18    /* an integer of more digits goes to the Python decoder */
#define FIELDS 10           /* type, id, re, from_, to, item, slots, tail, v, source */
#define HEAD 4              /* the slots a Message and a JSON form hold apart: re, from, to, item */
#define CODE_MAX 32         /* a code longer than this (or not ASCII) is looked up in the codes' frozenset */
#define CODES_MAX 4096      /* a set of more codes has no table */

/* A set of codes as an open-addressing table from a code's text to the code itself, so a value that is one of
 * them is the vocabulary's own string: no new str made and hashed to look it up. `complete`: every code is in
 * the table, so a value not found is none of them. */
typedef struct {
    unsigned hash;
    int len;
    char text[CODE_MAX];
    PyObject *code;         /* borrowed from the Spec's frozenset, which the Spec holds */
} CodeEntry;

typedef struct {
    size_t mask;
    int complete;
    CodeEntry entries[];
} CodeTable;

typedef struct {
    int kind;
    int inner;              /* a list's element kind */
    int required;
    int own;                /* a slot of the plan's type (any other slot of the vocabulary earns a note) */
    long long lo, hi;       /* K_INT */
    Py_ssize_t key_len;
    char key_text[KEY_MAX];
    PyObject *key;          /* the key, as the vocabulary spells it */
    PyObject *codes;        /* K_SET, or a list of K_SET: the codes (a frozenset) */
    CodeTable *table;       /* the same codes as a table, or NULL: the frozenset alone */
    int field;              /* which of the HEAD slots the key is (0 re, 1 from, 2 to, 3 item), or -1 */
    int words;              /* what its decoder's ValueError says is what the full pass says of the value */
    PyObject *decode;       /* the Python decoder, or None */
} Spec;

typedef struct {
    PyObject_HEAD
    PyObject *name;
    PyObject *profile;      /* the vocabulary's profile name, or None: the core */
    PyObject *rules;        /* a tuple of rule rows (rule_row) */
    Spec *specs;
    Py_ssize_t nspecs;
    Py_ssize_t nrequired;
    Py_ssize_t tail_max;
    int head_apart;         /* the HEAD slots are kept out of the values dict (no rule reads them there) */
    PyObject *required_order;  /* the type's required keys in its own order (a tuple), or NULL */
    PyObject *form;         /* the type's JSON form with v and type set, every other value None (build_form copies it) */
    short table[TABLE_SIZE];  /* hash of a key -> 1 + its index in specs, 0: empty */
} Plan;

/* What configure() hands over: the types and objects a Message is built from. */
static PyTypeObject *message_type = NULL;
static PyTypeObject *source_type = NULL;
static PyObject *setters[FIELDS];       /* the Message's slot descriptors */
static PyObject *resolve = NULL;        /* (receiver, profile name) -> plans or None */
static PyObject *foreign = NULL;        /* (receiver, key, profile) -> whether another held profile requires key */
static PyObject *version = NULL;        /* "RW1" */
static PyObject *key_re, *key_from, *key_to, *key_item;
/* the other keys of a JSON form (v type id re from to item slots tail: FORM_FIELDS in all) */
#define FORM_FIELDS 9
static PyObject *key_v, *key_type, *key_id, *key_slots, *key_tail;

/* ---- characters ------------------------------------------------------ */

static int in_ranges(Py_UCS4 c, const Py_UCS4 (*ranges)[2], size_t n) {
    size_t lo = 0, hi = n;
    while (lo < hi) {  /* ranges are sorted and disjoint */
        size_t mid = lo + (hi - lo) / 2;
        if (c < ranges[mid][0]) hi = mid;
        else if (c > ranges[mid][1]) lo = mid + 1;
        else return 1;
    }
    return 0;
}

/* A character a slot's value may hold (the SLOT terminal's value class). */
static int slot_value_char(Py_UCS4 c) {
    if (c < 0x80) return c > 0x20 && c < 0x7f;
    return !in_ranges(c, SLOT_VALUE_EXCLUDED, SLOT_VALUE_EXCLUDED_COUNT);
}

static unsigned char value_byte[256];  /* slot_value_char of each one-byte character, filled when the module loads */

static int is_digit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
static int is_lower(Py_UCS4 c) { return c >= 'a' && c <= 'z'; }
static int is_agent_char(Py_UCS4 c) {
    return is_digit(c) || is_lower(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-';
}

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t len;
} Text;

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE __forceinline
#else
#define ALWAYS_INLINE inline
#endif

/* A character of a str's data: PyUnicode_READ, always inlined, so that where the kind is a constant (each copy of
 * scan_line_as) the read is one load. (PyUnicode_READ is an inline function of CPython's headers, which the compiler
 * may leave out of line once enough code reads characters, and then every character costs a call.) */
static ALWAYS_INLINE Py_UCS4 read_char(int kind, const void *data, Py_ssize_t i) {
    if (kind == PyUnicode_1BYTE_KIND) return ((const Py_UCS1 *)data)[i];
    if (kind == PyUnicode_2BYTE_KIND) return ((const Py_UCS2 *)data)[i];
    return ((const Py_UCS4 *)data)[i];
}

#define AT(t, i) read_char((t)->kind, (t)->data, (i))

/* A str's characters as the scanner reads them; 0 with an error set where it cannot be read. */
static int read_text(PyObject *text, Text *t) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return 0;
#endif
    t->kind = PyUnicode_KIND(text);
    t->data = PyUnicode_DATA(text);
    t->len = PyUnicode_GET_LENGTH(text);
    return 1;
}

static int equals_ascii(const Text *t, Py_ssize_t s, Py_ssize_t e, const char *want) {
    Py_ssize_t n = (Py_ssize_t)strlen(want);
    if (e - s != n) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (AT(t, s + i) != (Py_UCS4)(unsigned char)want[i]) return 0;
    return 1;
}

/* ---- native checks, each a subset of its Python decoder -------------- */

/* The MSGID terminal: [A-Za-z0-9._-] (([0-9-])* [A-Za-z._])* [0-9]* (-+ [0-9]+)+.
 * After the first character, the longest run of [0-9-] at the end must hold a '-'
 * and end in a digit (the character before that run, if any, is a letter, '.' or '_'). */
static ALWAYS_INLINE int msgid_terminal(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (e - s < 3) return 0;
    for (Py_ssize_t i = s; i < e; i++)
        if (!is_agent_char(AT(t, i))) return 0;
    if (!is_digit(AT(t, e - 1))) return 0;
    for (Py_ssize_t i = e - 1; i > s; i--) {
        Py_UCS4 c = AT(t, i);
        if (c == '-') return 1;
        if (!is_digit(c)) return 0;
    }
    return 0;
}

/* The msgid slot type: ([A-Za-z0-9._-]+)-([0-9]+). */
static int msgid_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t i = e;
    for (Py_ssize_t j = s; j < e; j++)
        if (!is_agent_char(AT(t, j))) return 0;
    while (i > s && is_digit(AT(t, i - 1))) i--;
    return i < e && i - 1 > s && AT(t, i - 1) == '-';
}

static int digits(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (s >= e) return 0;
    for (Py_ssize_t i = s; i < e; i++)
        if (!is_digit(AT(t, i))) return 0;
    return 1;
}

static int number_at(const Text *t, Py_ssize_t s, Py_ssize_t n) {
    int v = 0;
    for (Py_ssize_t i = s; i < s + n; i++) v = v * 10 + (int)(AT(t, i) - '0');
    return v;
}

static int calendar_date(const Text *t, Py_ssize_t s) {
    static const int days_in[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!digits(t, s, s + 8)) return 0;
    int y = number_at(t, s, 4), m = number_at(t, s + 4, 2), d = number_at(t, s + 6, 2);
    if (y < 1 || m < 1 || m > 12 || d < 1) return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= days_in[m - 1] + (m == 2 && leap);
}

static int time_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (e - s != 14 || !calendar_date(t, s) || AT(t, s + 8) != 'T' || AT(t, s + 13) != 'Z') return 0;
    if (!digits(t, s + 9, s + 13)) return 0;
    return number_at(t, s + 9, 2) <= 23 && number_at(t, s + 11, 2) <= 59;
}

/* -?[0-9]+ then, optionally, '.' and [0-9]+; the end of what it read in *end. */
static int decimal(const Text *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t *end, Py_ssize_t *fraction) {
    Py_ssize_t i = s;
    if (i < e && AT(t, i) == '-') i++;
    Py_ssize_t first = i;
    while (i < e && is_digit(AT(t, i))) i++;
    if (i == first) return 0;
    *fraction = -1;
    if (i < e && AT(t, i) == '.') {
        Py_ssize_t dot = ++i;
        while (i < e && is_digit(AT(t, i))) i++;
        if (i == dot) return 0;
        *fraction = i - dot;
    }
    *end = i;
    return 1;
}

static int money_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t end, fraction;
    return decimal(t, s, e, &end, &fraction) && end == e && fraction == 2;
}

static int num_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t end, fraction;
    if (!decimal(t, s, e, &end, &fraction)) return 0;
    if (end == e) return 1;
    if (AT(t, end) != '/') return 0;
    return decimal(t, end + 1, e, &end, &fraction) && end == e;
}

static int digest_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (e - s != 12) return 0;
    for (Py_ssize_t i = s; i < e; i++) {
        Py_UCS4 c = AT(t, i);
        if (!is_digit(c) && !(c >= 'a' && c <= 'f')) return 0;
    }
    return 1;
}

/* ([^:+\s]+):(.+) where the key is ASCII: the key ends at the first ':'. */
static int constraint_value(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    for (Py_ssize_t i = s; i < e; i++) {
        Py_UCS4 c = AT(t, i);
        if (c == ':') return i > s && i + 1 < e;
        if (c == '+' || c <= 0x20 || c >= 0x7f) return 0;
    }
    return 0;
}

/* An integer of at most NATIVE_DIGITS digits as a Python int, or NULL (no error set): not sure. */
static PyObject *small_int(const Text *t, Py_ssize_t s, Py_ssize_t e, int sign_ok, const Spec *spec) {
    int negative = 0;
    if (sign_ok && s < e && AT(t, s) == '-') { negative = 1; s++; }
    if (!digits(t, s, e) || e - s > NATIVE_DIGITS) return NULL;
    long long v = 0;
    for (Py_ssize_t i = s; i < e; i++) v = v * 10 + (long long)(AT(t, i) - '0');
    if (negative) v = -v;
    if (spec != NULL && (v < spec->lo || v > spec->hi)) return NULL;
    return PyLong_FromLongLong(v);
}

static PyObject *substring(PyObject *text, Py_ssize_t s, Py_ssize_t e) {
    return PyUnicode_Substring(text, s, e);
}

static unsigned key_hash(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    unsigned h = 2166136261u;
    for (Py_ssize_t i = s; i < e; i++) h = (h ^ (unsigned)AT(t, i)) * 16777619u;
    return h;
}

/* The code [s, e) is in the table (a borrowed reference), or NULL. */
static PyObject *code_lookup(const CodeTable *table, const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (e - s > CODE_MAX) return NULL;
    unsigned h = key_hash(t, s, e);
    for (size_t probe = 0; probe <= table->mask; probe++) {
        const CodeEntry *entry = &table->entries[(h + probe) & table->mask];
        if (entry->code == NULL) return NULL;
        if (entry->hash != h || entry->len != e - s) continue;
        Py_ssize_t i = 0;
        while (i < entry->len && AT(t, s + i) == (Py_UCS4)(unsigned char)entry->text[i]) i++;
        if (i == entry->len) return entry->code;
    }
    return NULL;
}

/* The table of a frozenset of codes, or NULL (no error set) where it has too many: then the frozenset alone. */
static CodeTable *code_table(PyObject *codes) {
    Py_ssize_t n = PySet_GET_SIZE(codes);
    if (n > CODES_MAX) return NULL;
    size_t size = 8;
    while (size < (size_t)n * 2) size *= 2;
    CodeTable *table = PyMem_Calloc(1, sizeof(CodeTable) + size * sizeof(CodeEntry));
    if (table == NULL) return NULL;
    table->mask = size - 1;
    table->complete = 1;
    PyObject *each = PyObject_GetIter(codes), *code;
    if (each == NULL) { PyErr_Clear(); PyMem_Free(table); return NULL; }
    while ((code = PyIter_Next(each)) != NULL) {
        Py_DECREF(code);  /* the frozenset, which the Spec holds, keeps it */
        Py_ssize_t len;
        const char *text = PyUnicode_CheckExact(code) && PyUnicode_IS_ASCII(code) ? PyUnicode_AsUTF8AndSize(code, &len)
                                                                                 : NULL;
        if (text == NULL || len > CODE_MAX) {
            PyErr_Clear();
            table->complete = 0;  /* a code the table cannot hold: a value not found may still be one */
            continue;
        }
        Text kt = {PyUnicode_1BYTE_KIND, text, len};
        unsigned h = key_hash(&kt, 0, len);
        size_t probe = 0;
        while (table->entries[(h + probe) & table->mask].code != NULL) probe++;
        CodeEntry *entry = &table->entries[(h + probe) & table->mask];
        entry->hash = h;
        entry->len = (int)len;
        memcpy(entry->text, text, (size_t)len);
        entry->code = code;
    }
    Py_DECREF(each);
    if (PyErr_Occurred()) { PyErr_Clear(); PyMem_Free(table); return NULL; }
    return table;
}

/* One value checked and decoded natively: a new reference; NULL with no error set: not sure. */
static PyObject *native(int kind, const Spec *spec, PyObject *text, const Text *t, Py_ssize_t s, Py_ssize_t e) {
    int ok;
    switch (kind) {
    case K_KEEP: return substring(text, s, e);
    case K_SET: {
        if (spec->table != NULL) {
            PyObject *code = code_lookup(spec->table, t, s, e);
            if (code != NULL) { Py_INCREF(code); return code; }
            if (spec->table->complete) return NULL;
        }
        PyObject *raw = substring(text, s, e);
        if (raw == NULL) return NULL;
        int member = PySet_Contains(spec->codes, raw);
        if (member == 1) return raw;
        Py_DECREF(raw);
        return NULL;
    }
    case K_AGENT:
        ok = s < e;
        for (Py_ssize_t i = s; ok && i < e; i++) ok = is_agent_char(AT(t, i));
        break;
    case K_MSGID: ok = msgid_value(t, s, e); break;
    case K_DATE: ok = e - s == 8 && calendar_date(t, s); break;
    case K_TIME: ok = time_value(t, s, e); break;
    case K_MONEY: ok = money_value(t, s, e); break;
    case K_NUM: ok = num_value(t, s, e); break;
    case K_DIGEST: ok = digest_value(t, s, e); break;
    case K_CONSTRAINT: ok = constraint_value(t, s, e); break;
    case K_BOOL:
        if (e - s != 1) return NULL;
        if (AT(t, s) == 'Y') Py_RETURN_TRUE;
        if (AT(t, s) == 'N') Py_RETURN_FALSE;
        return NULL;
    case K_INT: return small_int(t, s, e, 1, spec);
    case K_DAYS:
        if (e > s && AT(t, e - 1) == 'd') e--;
        return small_int(t, s, e, 0, NULL);
    default: return NULL;
    }
    return ok ? substring(text, s, e) : NULL;
}

/* A list: each '+'-separated element natively, as a tuple; NULL with no error set: not sure. */
static PyObject *native_list(const Spec *spec, PyObject *text, const Text *t, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t count = 1;
    for (Py_ssize_t i = s; i < e; i++) count += AT(t, i) == '+';
    PyObject *items = PyTuple_New(count);
    if (items == NULL) return NULL;
    Py_ssize_t start = s, n = 0;
    for (Py_ssize_t i = s; i <= e; i++) {
        if (i < e && AT(t, i) != '+') continue;
        PyObject *item = i > start && n < count ? native(spec->inner, spec, text, t, start, i) : NULL;
        if (item == NULL) { Py_DECREF(items); return NULL; }
        PyTuple_SET_ITEM(items, n++, item);
        start = i + 1;
    }
    return items;
}

/* What the error being raised says (str() of it), the error taken off the indicator: a new reference, or NULL
 * (with no error set) if it cannot be had. Only the words are kept: the error holds its traceback, whose frames
 * hold the frames that called the scanner. */
static PyObject *error_words(void) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *value = PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
#endif
    PyObject *words = value == NULL ? NULL : PyObject_Str(value);
    if (words == NULL) PyErr_Clear();
    Py_XDECREF(value);
    return words;
}

/* A value checked and decoded: 1 (*out a new reference), 0 refused or not sure, -1 an error. Where the
 * slot's Python decoder refused it with a ValueError and reason is not NULL, *reason is what that error says
 * (a new reference): what fault() hands Python to word the refusal with, not decoding the value again. */
static int decode_value(const Spec *spec, PyObject *text, const Text *t, Py_ssize_t s, Py_ssize_t e, PyObject **out,
                        PyObject **reason) {
    PyObject *value = spec->kind == K_LIST ? native_list(spec, text, t, s, e)
                    : spec->kind == K_CALL ? NULL : native(spec->kind, spec, text, t, s, e);
    if (value != NULL) { *out = value; return 1; }
    if (PyErr_Occurred()) return -1;
    if (spec->kind == K_KEEP || spec->decode == Py_None || (spec->kind == K_SET && (reason == NULL || !spec->words)))
        return 0;
    PyObject *raw = substring(text, s, e);
    if (raw == NULL) return -1;
    value = PyObject_CallOneArg(spec->decode, raw);
    Py_DECREF(raw);
    if (value != NULL && spec->kind == K_SET) {  /* the slot's decoder, called for its words only: the codes decide */
        Py_DECREF(value);
        return 0;
    }
    if (value != NULL) { *out = value; return 1; }
    if (!PyErr_ExceptionMatches(PyExc_ValueError)) return -1;
    if (reason == NULL || !spec->words) PyErr_Clear();
    else Py_XSETREF(*reason, error_words());
    return 0;
}

/* ---- plans ----------------------------------------------------------- */

/* The spec of the key [s, e), whose key_hash is h (the scan reads the key's characters once, hashing them as it
 * checks them); inlined in each kind's copy of the scan. */
static ALWAYS_INLINE const Spec *find_spec(const Plan *plan, const Text *t, Py_ssize_t s, Py_ssize_t e, unsigned h) {
    if (e - s > KEY_MAX) return NULL;
    for (unsigned probe = 0; probe < TABLE_SIZE; probe++) {
        int slot = plan->table[(h + probe) & (TABLE_SIZE - 1)];
        if (slot == 0) return NULL;
        const Spec *spec = &plan->specs[slot - 1];
        if (spec->key_len != e - s) continue;
        Py_ssize_t i = 0;
        while (i < spec->key_len && AT(t, s + i) == (Py_UCS4)(unsigned char)spec->key_text[i]) i++;
        if (i == spec->key_len) return spec;
    }
    return NULL;
}

static void plan_dealloc(Plan *self) {
    for (Py_ssize_t i = 0; i < self->nspecs; i++) {
        Py_XDECREF(self->specs[i].key);
        Py_XDECREF(self->specs[i].codes);
        Py_XDECREF(self->specs[i].decode);
        PyMem_Free(self->specs[i].table);
    }
    PyMem_Free(self->specs);
    Py_XDECREF(self->name);
    Py_XDECREF(self->profile);
    Py_XDECREF(self->rules);
    Py_XDECREF(self->required_order);
    Py_XDECREF(self->form);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rogerwilco.core._scan.Plan",
    .tp_basicsize = sizeof(Plan),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One message type of one vocabulary, as the scanner's tables (built by rogerwilco.core.scanner).",
};

/* A rule row: (closure, conditions or None, require, require_tail, parts, total or None), each
 * condition (key, 0 equals | 1 prefix | 2 in | 3 never, argument), every key a str. */
static int rule_row(PyObject *row) {
    if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 6 || !PyCallable_Check(PyTuple_GET_ITEM(row, 0)))
        return 0;
    PyObject *conditions = PyTuple_GET_ITEM(row, 1);
    if (conditions == Py_None) return 1;
    PyObject *require = PyTuple_GET_ITEM(row, 2), *parts = PyTuple_GET_ITEM(row, 4), *total = PyTuple_GET_ITEM(row, 5);
    if (!PyTuple_Check(conditions) || !PyTuple_Check(require) || !PyTuple_Check(parts)) return 0;
    if (!PyBool_Check(PyTuple_GET_ITEM(row, 3)) || (total != Py_None && !PyUnicode_Check(total))) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(conditions); i++) {
        PyObject *cond = PyTuple_GET_ITEM(conditions, i);
        if (!PyTuple_Check(cond) || PyTuple_GET_SIZE(cond) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(cond, 0))
                || !PyLong_Check(PyTuple_GET_ITEM(cond, 1))) return 0;
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(cond, 1));
        if (kind < 0 || kind > 3 || (kind == 1 && !PyUnicode_Check(PyTuple_GET_ITEM(cond, 2)))) return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(require); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(require, i))) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(parts); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(parts, i))) return 0;
    return 1;
}

/* Which HEAD slot a key is (0 re, 1 from, 2 to, 3 item), or -1. */
static int head_field(PyObject *key) {
    if (!PyUnicode_Check(key)) return -1;  /* (two str compare without an error) */
    PyObject *keys[HEAD] = {key_re, key_from, key_to, key_item};
    for (int i = 0; i < HEAD; i++)
        if (PyUnicode_Compare(key, keys[i]) == 0) return i;
    return -1;
}

/* Whether a rule row reads a HEAD slot from the values dict: a closure may read any key. */
static int reads_head(PyObject *row) {
    PyObject *conditions = PyTuple_GET_ITEM(row, 1);
    if (conditions == Py_None) return 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(conditions); i++)
        if (head_field(PyTuple_GET_ITEM(PyTuple_GET_ITEM(conditions, i), 0)) >= 0) return 1;
    PyObject *lists[2] = {PyTuple_GET_ITEM(row, 2), PyTuple_GET_ITEM(row, 4)};
    for (int l = 0; l < 2; l++)
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lists[l]); i++)
            if (head_field(PyTuple_GET_ITEM(lists[l], i)) >= 0) return 1;
    PyObject *total = PyTuple_GET_ITEM(row, 5);
    return total != Py_None && head_field(total) >= 0;
}

/* The JSON form's keys in order, each with None: each plan's form is a copy of it (no insertion, no resize when
 * a line's values are set). */
static PyObject *form_template = NULL;

/* make_plan(name, profile, specs, rules, tail_max, required=None): specs is a sequence of
 * (key, kind, inner kind, required, codes or None, decoder or None, lo, hi, own[, words]); required, the type's required
 * keys in its own order (the first of them a line lacks is named with a missing-slot fault). */
static PyObject *make_plan(PyObject *module, PyObject *args) {
    PyObject *name, *profile, *specs, *rules, *order = NULL;
    Py_ssize_t tail_max;
    if (!PyArg_ParseTuple(args, "UOO!O!n|O!", &name, &profile, &PyTuple_Type, &specs, &PyTuple_Type, &rules, &tail_max,
                          &PyTuple_Type, &order))
        return NULL;
    for (Py_ssize_t i = 0; order != NULL && i < PyTuple_GET_SIZE(order); i++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(order, i))) {
            PyErr_SetString(PyExc_ValueError, "required keys that are not str");
            return NULL;
        }
    }
    for (Py_ssize_t r = 0; r < PyTuple_GET_SIZE(rules); r++) {
        if (!rule_row(PyTuple_GET_ITEM(rules, r))) {
            PyErr_SetString(PyExc_ValueError, "a rule row the scanner cannot use");
            return NULL;
        }
    }
    Py_ssize_t n = PyTuple_GET_SIZE(specs);
    if (n > TABLE_SIZE / 2) {
        PyErr_SetString(PyExc_ValueError, "too many keys for one plan");
        return NULL;
    }
    Plan *plan = PyObject_New(Plan, &PlanType);
    if (plan == NULL) return NULL;
    plan->specs = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Spec));
    plan->nspecs = 0;
    Py_INCREF(name); plan->name = name;
    Py_INCREF(profile); plan->profile = profile;
    Py_INCREF(rules); plan->rules = rules;
    Py_XINCREF(order); plan->required_order = order;
    plan->form = PyDict_Copy(form_template);
    plan->tail_max = tail_max;
    plan->nrequired = 0;
    memset(plan->table, 0, sizeof plan->table);
    if (plan->form == NULL) { Py_DECREF(plan); return NULL; }
    if (PyDict_SetItem(plan->form, key_v, version) < 0 || PyDict_SetItem(plan->form, key_type, name) < 0) {
        Py_DECREF(plan);
        return NULL;
    }
    if (plan->specs == NULL) { Py_DECREF(plan); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        Spec *spec = &plan->specs[i];
        PyObject *key, *codes, *decode;
        int required;
        spec->words = 1;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(specs, i), "UiipOOLLp|p", &key, &spec->kind, &spec->inner, &required,
                              &codes, &decode, &spec->lo, &spec->hi, &spec->own, &spec->words)) {
            Py_DECREF(plan);
            return NULL;
        }
        plan->nspecs = i + 1;
        spec->field = head_field(key);
        Py_INCREF(key); spec->key = key;
        Py_INCREF(decode); spec->decode = decode;
        if (codes != Py_None) { Py_INCREF(codes); spec->codes = codes; }
        const char *text = PyUnicode_AsUTF8AndSize(key, &spec->key_len);
        if (text == NULL || spec->key_len > KEY_MAX || spec->kind < 0 || spec->kind >= K_COUNT
                || spec->inner < 0 || spec->inner >= K_LIST
                || ((spec->kind == K_SET || (spec->kind == K_LIST && spec->inner == K_SET))
                    && !PyFrozenSet_Check(codes))) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a spec the scanner cannot use");
            Py_DECREF(plan);
            return NULL;
        }
        memcpy(spec->key_text, text, (size_t)spec->key_len);
        if (spec->codes != NULL) spec->table = code_table(spec->codes);
        spec->required = required;
        plan->nrequired += required;
        Text kt = {PyUnicode_KIND(key), PyUnicode_DATA(key), spec->key_len};
        unsigned h = key_hash(&kt, 0, spec->key_len);
        unsigned probe = 0;
        while (plan->table[(h + probe) & (TABLE_SIZE - 1)] != 0) probe++;
        plan->table[(h + probe) & (TABLE_SIZE - 1)] = (short)(i + 1);
    }
    /* the HEAD slots stay out of the values dict where every one has a spec (so none is kept as an unknown key)
     * and no rule reads one there */
    int heads = 0;
    for (Py_ssize_t i = 0; i < n; i++) heads += plan->specs[i].field >= 0;
    plan->head_apart = heads == HEAD;
    for (Py_ssize_t r = 0; plan->head_apart && r < PyTuple_GET_SIZE(rules); r++)
        plan->head_apart = !reads_head(PyTuple_GET_ITEM(rules, r));
    return (PyObject *)plan;
}

/* ---- the line -------------------------------------------------------- */

/* The TAIL terminal: words one space apart; a word is characters of the tail class, with a
 * variation selector, a joiner, or a selector then a joiner between two runs of them, and at
 * most one selector at its end (_scan_classes.h, from the grammar). */
enum { TAIL_WORD_START, TAIL_IN_WORD, TAIL_AFTER_SELECTOR, TAIL_AFTER_JOINER };

static int tail_char(Py_UCS4 c) {
    if (c < 0x80) return c > 0x20 && c < 0x7f;
    return !in_ranges(c, TAIL_EXCLUDED, TAIL_EXCLUDED_COUNT);
}

static unsigned char tail_byte[256];  /* tail_char of each one-byte character, filled when the module loads */

/* The tail's state machine over the characters of one kind (T: Py_UCS2 or Py_UCS4); a run of one-byte word
 * characters is read in a tight loop. */
#define TAIL_LOOP(T)                                                                                          \
    {                                                                                                         \
        const T *d = (const T *)t->data;                                                                      \
        for (Py_ssize_t i = s; i < e; i++) {                                                                  \
            Py_UCS4 c = d[i];                                                                                 \
            if (c < 256 && tail_byte[c]) {                                                                    \
                while (i + 1 < e && d[i + 1] < 256 && tail_byte[d[i + 1]]) i++;                               \
                state = TAIL_IN_WORD, end = i + 1;                                                            \
                continue;                                                                                     \
            }                                                                                                 \
            int selector = c >= TAIL_SELECTOR_FIRST && c <= TAIL_SELECTOR_LAST;                               \
            int joiner = c == TAIL_JOINER_A || c == TAIL_JOINER_B;                                            \
            if (c >= 256 && tail_char(c)) state = TAIL_IN_WORD;                                               \
            else if (c == ' ' && (state == TAIL_IN_WORD || state == TAIL_AFTER_SELECTOR)) state = TAIL_WORD_START; \
            else if (selector && state == TAIL_IN_WORD) state = TAIL_AFTER_SELECTOR;                          \
            else if (joiner && (state == TAIL_IN_WORD || state == TAIL_AFTER_SELECTOR)) state = TAIL_AFTER_JOINER; \
            else break;                                                                                       \
            if (state == TAIL_IN_WORD || state == TAIL_AFTER_SELECTOR) end = i + 1;                           \
        }                                                                                                     \
    }

/* Where the TAIL terminal, matched at s, ends: the end of the longest prefix of [s, e) that is a tail, or
 * -1 where none is (the regex's greedy match; tests/test_scanner.py holds the two to it). */
static Py_ssize_t tail_end(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    int state = TAIL_WORD_START;
    Py_ssize_t end = -1;
    if (t->kind == PyUnicode_1BYTE_KIND) {  /* no selector or joiner is one byte: words and spaces alone */
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        Py_ssize_t i = s;
        while (i < e && tail_byte[d[i]]) {  /* a word, then one space before the next */
            do i++; while (i < e && tail_byte[d[i]]);
            end = i;
            if (i < e && d[i] == ' ') i++;
            else break;
        }
    } else if (t->kind == PyUnicode_2BYTE_KIND) {
        TAIL_LOOP(Py_UCS2)
    } else {
        TAIL_LOOP(Py_UCS4)
    }
    return end;
}

static unsigned char tail_or_space[256];  /* 1: a word's character, 3: a space, 0: neither (filled at load) */
static unsigned char tail_or_space2[0x10000];  /* the same of each two-byte character, filled when first read */
static int tail_or_space2_filled = 0;

/* Whether every character of [s, e) of data (T: one or two bytes a character) is a tail's word character or a
 * space, with no space first or last and no two spaces together: then [s, e) is a tail (words one space apart).
 * Read without a branch a character (a branch at each word's end is a mispredict a word): the table's bit 0 says
 * "a word's character or a space", its bit 1 "a space", so two spaces together leave bit 1 in prev & now. 0 is
 * not a "no": a selector or a joiner (in no table) takes the state machine. */
#define PLAIN_WORDS(T, table)                                                                                 \
    {                                                                                                         \
        const T *d = (const T *)t->data;                                                                      \
        unsigned ok = d[s] != ' ' && d[e - 1] != ' ', two = 0, prev = 0;                                      \
        for (Py_ssize_t i = s; i < e; i++) {                                                                  \
            unsigned now = table[d[i]];                                                                       \
            ok &= now;                                                                                        \
            two |= prev & now;                                                                                \
            prev = now;                                                                                       \
        }                                                                                                     \
        plain = ok && !(two & 2);                                                                             \
    }

/* Whether all of [s, e) is a tail. */
static int tail_terminal(const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (s >= e) return 0;
    int plain = 0;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        PLAIN_WORDS(Py_UCS1, tail_or_space)
        return plain;  /* no selector or joiner is one byte */
    }
    if (t->kind == PyUnicode_2BYTE_KIND) {
        if (!tail_or_space2_filled) {
            for (Py_UCS4 c = 0; c < 0x10000; c++) tail_or_space2[c] = (unsigned char)(c == ' ' ? 3 : tail_char(c));
            tail_or_space2_filled = 1;
        }
        PLAIN_WORDS(Py_UCS2, tail_or_space2)
    }
    return plain || tail_end(t, s, e) == e;
}

/* Where mark (ASCII, two characters or more) first starts in [s, e), or -1. memchr finds the bytes of the mark's
 * second character (rarer than a space); in a string of two or four bytes a character, a byte found is that
 * character only where it is a character's low byte and the character's other bytes are zero (AT says). */
static Py_ssize_t find_mark(const Text *t, Py_ssize_t s, Py_ssize_t e, const char *mark) {
    static const union { Py_UCS4 word; unsigned char bytes[4]; } probe = {1};
    Py_ssize_t n = (Py_ssize_t)strlen(mark);
    if (e - s < n) return -1;
    const Py_ssize_t k = t->kind, low = probe.bytes[0] == 1 ? 0 : k - 1;  /* the low byte's place in a character */
    const unsigned char *d = (const unsigned char *)t->data;
    const unsigned char *from = d + (s + 1) * k, *to = d + (e - n + 2) * k;  /* the second character's bytes */
    while (from < to) {
        const unsigned char *hit = memchr(from, (unsigned char)mark[1], (size_t)(to - from));
        if (hit == NULL) return -1;
        from = hit + 1;
        Py_ssize_t at = hit - d - low;
        if (at % k != 0) continue;
        Py_ssize_t i = at / k - 1;  /* where the mark would start */
        if (AT(t, i + 1) != (Py_UCS4)(unsigned char)mark[1]) continue;
        Py_ssize_t j = 0;
        while (j < n && AT(t, i + j) == (Py_UCS4)(unsigned char)mark[j]) j++;
        if (j == n) return i;
    }
    return -1;
}

static int set_field(PyObject *message, int field, PyObject *value) {
    PyObject *descr = setters[field];
    return Py_TYPE(descr)->tp_descr_set(descr, message, value);
}

/* The HEAD slots taken out of the values dict into head (new references, NULL where absent): 0, or -1 with an
 * error set. */
static int take_head(PyObject *values, PyObject **head) {
    PyObject *keys[HEAD] = {key_re, key_from, key_to, key_item};
    for (int i = 0; i < HEAD; i++) {
        PyObject *value = PyDict_GetItemWithError(values, keys[i]);
        if (value == NULL) {
            if (PyErr_Occurred()) return -1;
            continue;
        }
        Py_INCREF(value);
        Py_XSETREF(head[i], value);
        if (PyDict_DelItem(values, keys[i]) < 0) return -1;
    }
    return 0;
}

/* A HEAD slot's value as a field holds it: a new reference, None where the line has none. */
static PyObject *head_value(PyObject *value) {
    if (value == NULL) value = Py_None;
    Py_INCREF(value);
    return value;
}

static PyObject *build_message(PyObject *text, const Plan *plan, PyObject *msgid, PyObject **head,
                               PyObject *values, PyObject *tail, PyObject *line, PyObject *file) {
    PyObject *fields[FIELDS] = {NULL};
    PyObject *message = NULL;
    fields[0] = plan->name; Py_INCREF(plan->name);
    fields[1] = msgid; Py_INCREF(msgid);
    for (int i = 0; i < HEAD; i++) fields[2 + i] = head_value(head[i]);
    if ((fields[6] = PyDictProxy_New(values)) == NULL) goto done;
    fields[7] = tail; Py_INCREF(tail);
    fields[8] = version; Py_INCREF(version);
    PyObject *source = source_type->tp_alloc(source_type, 4);
    if (source == NULL) goto done;
    PyObject *items[4] = {text, line, file, Py_None};
    for (int i = 0; i < 4; i++) { Py_INCREF(items[i]); PyTuple_SET_ITEM(source, i, items[i]); }
    fields[9] = source;
    message = message_type->tp_alloc(message_type, 0);
    if (message == NULL) goto done;
    for (int i = 0; i < FIELDS; i++) {
        if (set_field(message, i, fields[i]) < 0) { Py_CLEAR(message); goto done; }
    }
done:
    for (int i = 0; i < FIELDS; i++) Py_XDECREF(fields[i]);
    return message;
}

/* The JSON form of a line (spec section 6), as accept.json_form gives it: no Message, no Source. The slots
 * are the values dict itself, a list value as a list (lists: whether any value is a tuple). A copy of the plan's
 * form, whose v and type are set and whose other values are None: only what the line has is set. */
static PyObject *build_form(const Plan *plan, PyObject *msgid, PyObject **head, PyObject *values, PyObject *tail,
                            int lists) {
    /* replacing the value of a key already there keeps the dict's keys, so iterating on is safe */
    Py_ssize_t at = 0;
    PyObject *key, *value;
    while (lists && PyDict_Next(values, &at, &key, &value)) {
        if (!PyTuple_CheckExact(value)) continue;
        PyObject *list = PySequence_List(value);
        if (list == NULL) return NULL;
        int failed = PyDict_SetItem(values, key, list) < 0;
        Py_DECREF(list);
        if (failed) return NULL;
    }
    PyObject *names[FORM_FIELDS - 2] = {key_id, key_re, key_from, key_to, key_item, key_slots, key_tail};
    PyObject *items[FORM_FIELDS - 2] = {msgid, head[0], head[1], head[2], head[3], values, tail};
    PyObject *form = PyDict_Copy(plan->form);
    if (form == NULL) return NULL;
    for (int i = 0; i < FORM_FIELDS - 2; i++) {
        if (items[i] == NULL || items[i] == Py_None) continue;  /* None already */
        if (PyDict_SetItem(form, names[i], items[i]) < 0) { Py_DECREF(form); return NULL; }
    }
    return form;
}

/* A decimal -?[0-9]+(\.[0-9]+)? of at most RULE_DIGITS digits, scaled to `scale` fraction digits; 0: not sure. */
#define RULE_DIGITS 17
#define RULE_PARTS 8

static int decimal_parts(PyObject *value, Py_ssize_t *fraction) {
    if (!PyUnicode_Check(value)) return 0;
    Text t = {PyUnicode_KIND(value), PyUnicode_DATA(value), PyUnicode_GET_LENGTH(value)};
    Py_ssize_t end;
    if (!decimal(&t, 0, t.len, &end, fraction) || end != t.len) return 0;
    if (*fraction < 0) *fraction = 0;
    return t.len - (AT(&t, 0) == '-') - (*fraction > 0) <= RULE_DIGITS;
}

static long long scaled(PyObject *value, Py_ssize_t scale) {
    Text t = {PyUnicode_KIND(value), PyUnicode_DATA(value), PyUnicode_GET_LENGTH(value)};
    long long v = 0;
    Py_ssize_t fraction = 0;
    int seen_dot = 0;
    for (Py_ssize_t i = AT(&t, 0) == '-'; i < t.len; i++) {
        Py_UCS4 c = AT(&t, i);
        if (c == '.') { seen_dot = 1; continue; }
        v = v * 10 + (long long)(c - '0');
        fraction += seen_dot;
    }
    for (; fraction < scale; fraction++) v *= 10;
    return AT(&t, 0) == '-' ? -v : v;
}

/* sum(parts) == total over the values as written, natively: 1, 0, or 2: not sure (the rule's closure decides). */
static int native_sum(PyObject *values, PyObject *parts, PyObject *total) {
    Py_ssize_t nparts = PyTuple_GET_SIZE(parts), scale = 0, fraction;
    if (nparts > RULE_PARTS) return 2;
    PyObject *want = PyDict_GetItemWithError(values, total);
    if (want == NULL) return PyErr_Occurred() ? -1 : 1;
    for (Py_ssize_t i = 0; i < nparts; i++) {
        PyObject *part = PyDict_GetItemWithError(values, PyTuple_GET_ITEM(parts, i));
        if (part == NULL) return PyErr_Occurred() ? -1 : 1;  /* the rule applies only with every part */
        if (!decimal_parts(part, &fraction)) return 2;
        if (fraction > scale) scale = fraction;
    }
    if (!decimal_parts(want, &fraction)) return 2;
    if (fraction > scale) scale = fraction;
    long long got = 0;
    /* a value scaled has fewer digits than its length and the scale together: under 10^17, and
     * at most RULE_PARTS of them sum well inside int64 */
    for (Py_ssize_t i = 0; i < nparts; i++) {
        PyObject *part = PyDict_GetItemWithError(values, PyTuple_GET_ITEM(parts, i));
        if (part == NULL || PyUnicode_GET_LENGTH(part) + scale > RULE_DIGITS) return 2;
        got += scaled(part, scale);
    }
    if (PyUnicode_GET_LENGTH(want) + scale > RULE_DIGITS) return 2;
    return got == scaled(want, scale);
}

/* One `when` condition on a present value: 1 holds, 0 not, -1 error. */
static int condition_holds(PyObject *value, int kind, PyObject *arg) {
    switch (kind) {
    case 0: return PyObject_RichCompareBool(value, arg, Py_EQ);
    case 1: return PyUnicode_Check(value) && PyUnicode_Tailmatch(value, arg, 0, PY_SSIZE_T_MAX, -1) == 1;
    case 2: return PySequence_Contains(arg, value);
    default: return 0;
    }
}

/* A rule, natively where its row says how: (closure, conditions, require, require_tail, parts, total),
 * conditions None: the closure decides. 1 satisfied, 0 not, -1 error. */
static int rule_holds(PyObject *rule, PyObject *values, PyObject *tail) {
    PyObject *conditions = PyTuple_GET_ITEM(rule, 1);
    if (conditions == Py_None) return 2;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(conditions); i++) {
        PyObject *cond = PyTuple_GET_ITEM(conditions, i);
        PyObject *value = PyDict_GetItemWithError(values, PyTuple_GET_ITEM(cond, 0));
        if (value == NULL) return PyErr_Occurred() ? -1 : 1;  /* the rule does not apply */
        int holds = condition_holds(value, (int)PyLong_AsLong(PyTuple_GET_ITEM(cond, 1)), PyTuple_GET_ITEM(cond, 2));
        if (holds <= 0) return holds < 0 ? -1 : 1;
    }
    PyObject *require = PyTuple_GET_ITEM(rule, 2);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(require); i++) {
        int present = PyDict_Contains(values, PyTuple_GET_ITEM(require, i));
        if (present <= 0) return present;
    }
    if (PyTuple_GET_ITEM(rule, 3) == Py_True && tail == Py_None) return 0;
    if (PyTuple_GET_ITEM(rule, 5) == Py_None) return 1;
    return native_sum(values, PyTuple_GET_ITEM(rule, 4), PyTuple_GET_ITEM(rule, 5));
}

/* The type's rules, in order: 1 all hold, 0 one does not (*failed its index), -1 an error. */
static int run_rules(const Plan *plan, PyObject *values, PyObject *text, const Text *t, Py_ssize_t s,
                     Py_ssize_t head_end, PyObject *tail, Py_ssize_t *failed) {
    Py_ssize_t nrules = PyTuple_GET_SIZE(plan->rules);
    PyObject *slots = NULL;
    int ok = 1;
    for (Py_ssize_t r = 0; ok == 1 && r < nrules; r++) {
        PyObject *rule = PyTuple_GET_ITEM(plan->rules, r);
        ok = rule_holds(rule, values, tail);
        if (ok == 2) {  /* the rule's closure decides */
            if (slots == NULL) {  /* the slots as written, for the closure */
                if ((slots = PyList_New(0)) == NULL) return -1;
                for (Py_ssize_t a = s; a < head_end;) {
                    Py_ssize_t e = a;
                    while (e < head_end && AT(t, e) != ' ') e++;
                    PyObject *token = substring(text, a, e);
                    if (token == NULL || PyList_Append(slots, token) < 0) {
                        Py_XDECREF(token);
                        Py_DECREF(slots);
                        return -1;
                    }
                    Py_DECREF(token);
                    a = e + 1;
                }
            }
            PyObject *got = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(rule, 0), values, slots, tail, NULL);
            ok = got == NULL ? -1 : PyObject_IsTrue(got);
            Py_XDECREF(got);
        }
        if (ok == 0) *failed = r;
    }
    Py_XDECREF(slots);
    return ok;
}

/* The plans of the profiles lines name, per receiver: a Receiver's profiles are fixed once it is built
 * (it compiles a bundled one on first use, to the same vocabulary), so (receiver, name) -> plans holds. */
#define PROFILE_CACHE 8
static struct { PyObject *receiver, *name, *plans; } profile_cache[PROFILE_CACHE];
static int profile_next = 0;

static int same_text(PyObject *name, const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (PyUnicode_GET_LENGTH(name) != e - s) return 0;
    Text n = {PyUnicode_KIND(name), PyUnicode_DATA(name), e - s};
    for (Py_ssize_t i = 0; i < e - s; i++)
        if (AT(&n, i) != AT(t, s + i)) return 0;
    return 1;
}

/* resolve(receiver, name), remembered: a new reference to the plans, or to None (not held); NULL on an error.
 * A receiver that is a dict is verdict()'s: profile name -> plans, the profiles held, read as it is. */
static PyObject *profile_plans(PyObject *receiver, PyObject *text, const Text *t, Py_ssize_t s, Py_ssize_t e) {
    if (PyDict_CheckExact(receiver)) {
        PyObject *name = substring(text, s, e);
        if (name == NULL) return NULL;
        PyObject *plans = PyDict_GetItemWithError(receiver, name);
        Py_DECREF(name);
        if (plans == NULL && PyErr_Occurred()) return NULL;
        return Py_NewRef(plans == NULL ? Py_None : plans);
    }
    for (int i = 0; i < PROFILE_CACHE; i++) {
        if (profile_cache[i].receiver == receiver && same_text(profile_cache[i].name, t, s, e)) {
            Py_INCREF(profile_cache[i].plans);
            return profile_cache[i].plans;
        }
    }
    PyObject *name = substring(text, s, e);
    if (name == NULL) return NULL;
    PyObject *plans = PyObject_CallFunctionObjArgs(resolve, receiver, name, NULL);
    if (plans == NULL || !PyDict_Check(plans)) { Py_DECREF(name); return plans; }
    int slot = profile_next;
    profile_next = (profile_next + 1) % PROFILE_CACHE;
    Py_INCREF(receiver);
    Py_INCREF(plans);
    Py_XSETREF(profile_cache[slot].receiver, receiver);
    Py_XSETREF(profile_cache[slot].name, name);
    Py_XSETREF(profile_cache[slot].plans, plans);
    return plans;
}

static void forget_profiles(void) {
    for (int i = 0; i < PROFILE_CACHE; i++) {
        Py_CLEAR(profile_cache[i].receiver);
        Py_CLEAR(profile_cache[i].name);
        Py_CLEAR(profile_cache[i].plans);
    }
}

/* The Message of a line this scanner is sure of, or None; NULL on an error. With quiet, None also for a
 * line the full pass takes with a note (a slot of another type, an unknown key): a Message it answers
 * is then one the full pass gives with no finding at all. */
/* What fault() answers: a syntax fault (column, the terminals expected there), a repeated key (its slot's
 * column and end), a value its check refuses (the slot's column and end), an id that is not <from>-<n>, a
 * required slot missing, a rule of the type's that does not hold (the slots' column and end); the expected
 * terminals, as codes rogerwilco.core.scanner names. */
enum { FAULT_SYNTAX, FAULT_REPEATED, FAULT_VALUE, FAULT_ID, FAULT_MISSING, FAULT_RULE };

/* Where scan_line, asked for it (refusal not NULL), saw a refusal for sure: a fault kind and a slot's start and
 * end, set only when nothing before it in D10's order can be refused (the scanner settled it all). With a
 * refused value, *reason is then what the ValueError its Python decoder raised says, if that decoder refused it
 * (a new reference the caller releases; left NULL otherwise). */
static void saw(Py_ssize_t *found, int kind, Py_ssize_t s, Py_ssize_t e) {
    if (found == NULL) return;
    found[0] = kind, found[1] = s, found[2] = e;
}

/* The first of the type's required keys (in its own order) a line lacks: a borrowed reference, or NULL (no
 * error set) where the plan has no order or the presence cannot be told. */
static PyObject *first_absent(const Plan *plan, PyObject *const *head, PyObject *values) {
    if (plan->required_order == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(plan->required_order); i++) {
        PyObject *key = PyTuple_GET_ITEM(plan->required_order, i);
        int field = plan->head_apart ? head_field(key) : -1;
        int present = field >= 0 ? head[field] != NULL : PyDict_Contains(values, key);
        if (present < 0) { PyErr_Clear(); return NULL; }
        if (!present) return key;
    }
    return NULL;
}

#define FORM_VERDICT 2  /* scan_line's form: True for a line it is sure of, nothing built */
#define FORM_PARTS 3    /* scan_line's form: the JSON form's values after v, as a tuple (row() writes them) */

/* (type, id, re, from, to, item, slots, tail) of a line the scanner is sure of: its JSON form's values in the
 * form's order, no dict built (a list value left a tuple, which the JSON writer writes as a list). */
static PyObject *form_parts(const Plan *plan, PyObject *msgid, PyObject **head, PyObject *values, PyObject *tail) {
    return PyTuple_Pack(8, plan->name, msgid, head[0] ? head[0] : Py_None, head[1] ? head[1] : Py_None,
                        head[2] ? head[2] : Py_None, head[3] ? head[3] : Py_None, values, tail);
}

static ALWAYS_INLINE PyObject *scan_line_as(int kind, PyObject *text, PyObject *plans, PyObject *receiver,
                                             PyObject *line, PyObject *file, int quiet, int form, Py_ssize_t *refusal,
                                             PyObject **reason) {
    Text t;
    if (!read_text(text, &t)) return NULL;
    t.kind = kind;  /* a constant in each copy: AT's switch on the kind is gone from the loops */
    Text *tp = &t;
    Py_ssize_t n = t.len;
    Py_ssize_t mark = find_mark(tp, 0, n, " // ");
    Py_ssize_t head_end = mark < 0 ? n : mark;
    /* RW1 <TYPE> <id> */
    if (head_end < 4 || !equals_ascii(tp, 0, 4, "RW1 ")) Py_RETURN_NONE;
    Py_ssize_t type_s = 4, type_e = type_s;
    while (type_e < head_end && AT(tp, type_e) >= 'A' && AT(tp, type_e) <= 'Z') type_e++;
    if (type_e == type_s || type_e >= head_end || AT(tp, type_e) != ' ') Py_RETURN_NONE;
    Py_ssize_t id_s = type_e + 1, id_e = id_s;
    while (id_e < head_end && AT(tp, id_e) != ' ') id_e++;
    if (!msgid_terminal(tp, id_s, id_e)) Py_RETURN_NONE;
    Py_ssize_t slots_s = id_e + 1;
    if (id_e < head_end && slots_s >= head_end) Py_RETURN_NONE;  /* a trailing space */
    /* p=<profile>: the profile's plans */
    Py_ssize_t p = find_mark(tp, id_e, head_end, " p=");
    PyObject *held = NULL;
    if (p >= 0) {
        Py_ssize_t name_e = p + 3;
        while (name_e < head_end && AT(tp, name_e) != ' ') name_e++;
        held = profile_plans(receiver, text, tp, p + 3, name_e);
        if (held == NULL) return NULL;
        if (!PyDict_Check(held)) { Py_DECREF(held); Py_RETURN_NONE; }
        plans = held;
    }
    PyObject *type = substring(text, type_s, type_e);
    if (type == NULL) { Py_XDECREF(held); return NULL; }
    PyObject *found = PyDict_GetItemWithError(plans, type);
    Py_DECREF(type);
    if (found == NULL || !PyObject_TypeCheck(found, &PlanType)) {
        Py_XDECREF(held);
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    Plan *plan = (Plan *)found;
    Py_INCREF(plan);
    Py_XDECREF(held);
    PyObject *head[HEAD] = {NULL, NULL, NULL, NULL};  /* re from to item, where the plan keeps them apart */
    PyObject *values = PyDict_New(), *msgid = NULL, *tail = NULL, *result = NULL;
    if (values == NULL) goto fail;
    Py_ssize_t required = 0;
    int lists = 0;            /* a value is a tuple (a list, which a JSON form writes as a list) */
    PyObject *sender = NULL;  /* borrowed */
    for (Py_ssize_t s = slots_s; s < head_end;) {
        /* [a-z][a-z0-9_]*=<value class>+, read once: the key's characters up to '=', then the value's up to a
         * space or the head's end (a character out of its class: not sure) */
        Py_ssize_t eq = s, e;
        if (s >= head_end || !is_lower(AT(tp, s))) goto unsure;
        unsigned h = (2166136261u ^ (unsigned)AT(tp, s)) * 16777619u;  /* key_hash, as the key is read */
        for (eq = s + 1; eq < head_end; eq++) {
            Py_UCS4 c = AT(tp, eq);
            if (c == '=') break;
            if (!is_lower(c) && !is_digit(c) && c != '_') goto unsure;
            h = (h ^ (unsigned)c) * 16777619u;
        }
        for (e = eq + 1; e < head_end; e++) {
            Py_UCS4 c = AT(tp, e);
            if (c == ' ') break;
            if (c < 256 ? !value_byte[c] : !slot_value_char(c)) goto unsure;
        }
        if (eq >= head_end || eq + 1 >= e || (e < head_end && e + 1 >= head_end)) goto unsure;
        const Spec *spec = find_spec(plan, tp, s, eq, h);
        PyObject *key, *value;
        if (spec != NULL) {
            if (quiet && !spec->own) goto unsure;  /* a slot of another type: a note */
            int got = decode_value(spec, text, tp, eq + 1, e, &value, refusal == NULL ? NULL : reason);
            if (got < 0) goto fail;
            if (got == 0) { saw(refusal, FAULT_VALUE, s, e); goto unsure; }
            required += spec->required;
            lists |= PyTuple_CheckExact(value);
            if (spec->field >= 0 && plan->head_apart) {
                PyObject *had = head[spec->field];
                head[spec->field] = value;
                if (had != NULL) { Py_DECREF(had); goto unsure; }  /* a repeated key */
                s = e + 1;
                continue;
            }
            key = spec->key;
            Py_INCREF(key);
        } else {
            /* a key no slot of the vocabulary has: kept as written (an x_ extension silently, another with
             * a note check_line writes), unless another profile the receiver holds requires it (a refusal) */
            int extension = eq - s >= 2 && AT(tp, s) == 'x' && AT(tp, s + 1) == '_';
            if (quiet && !extension) goto unsure;  /* an unknown key: a note */
            if ((key = substring(text, s, eq)) == NULL) goto fail;
            if (!extension) {
                int repeated = PyDict_Contains(values, key);  /* a repeat first: refused whoever requires the key */
                if (repeated != 0) { Py_DECREF(key); if (repeated < 0) goto fail; goto unsure; }
                PyObject *owned = PyObject_CallFunctionObjArgs(foreign, receiver, key, plan->profile, NULL);
                int refused = owned == NULL ? -1 : PyObject_IsTrue(owned);
                Py_XDECREF(owned);
                if (refused != 0) { Py_DECREF(key); if (refused < 0) goto fail; goto unsure; }
            }
            if ((value = substring(text, eq + 1, e)) == NULL) { Py_DECREF(key); goto fail; }
        }
        Py_ssize_t before = PyDict_GET_SIZE(values);
        int failed = PyDict_SetDefault(values, key, value) == NULL;
        Py_DECREF(key);
        Py_DECREF(value);
        if (failed) goto fail;
        if (PyDict_GET_SIZE(values) == before) goto unsure;  /* a repeated key */
        s = e + 1;
    }
    msgid = substring(text, id_s, id_e);
    if (msgid == NULL) goto fail;
    sender = plan->head_apart ? head[1] : PyDict_GetItemWithError(values, key_from);
    if (sender == NULL && PyErr_Occurred()) goto fail;
    if (sender != NULL && PyUnicode_Check(sender)) {
        /* the id is <from>-<n>: its last '-' ends the sender's name */
        Py_ssize_t len = PyUnicode_GET_LENGTH(sender);
        Py_ssize_t dash = PyUnicode_FindChar(msgid, '-', 0, id_e - id_s, -1);
        Py_ssize_t starts = dash != len ? 0 : PyUnicode_Tailmatch(msgid, sender, 0, len, -1);
        if (starts < 0) goto fail;
        if (starts == 0) {
            saw(refusal, FAULT_ID, id_s, id_e);
            if (refusal != NULL && reason != NULL && PyUnicode_CheckExact(sender)) Py_XSETREF(*reason, Py_NewRef(sender));
            goto unsure;
        }
    }
    /* the id comes before the missing slots (D10) */
    if (required != plan->nrequired) {
        saw(refusal, FAULT_MISSING, slots_s, head_end);
        PyObject *absent = refusal != NULL && reason != NULL ? first_absent(plan, head, values) : NULL;
        if (absent != NULL) Py_XSETREF(*reason, Py_NewRef(absent));
        goto unsure;
    }
    if (mark >= 0) {
        Py_ssize_t tail_s = mark + 4;
        if (n - tail_s > plan->tail_max) goto unsure;
        tail = substring(text, tail_s, n);
        if (tail == NULL) goto fail;
        if (!tail_terminal(tp, tail_s, n)) goto unsure;
    } else {
        tail = Py_None;
        Py_INCREF(tail);
    }
    Py_ssize_t failed = -1;
    int rules = run_rules(plan, values, text, tp, slots_s, head_end, tail, &failed);
    if (rules < 0) goto fail;
    if (rules == 0) {
        saw(refusal, FAULT_RULE, slots_s, head_end);
        if (refusal != NULL) refusal[3] = failed;
        goto unsure;
    }
    if (!plan->head_apart && take_head(values, head) < 0) goto fail;
    if (head[1] == NULL || head[2] == NULL) goto unsure;  /* the Python path words a type without its sender or receiver */
    result = form == FORM_VERDICT ? Py_NewRef(Py_True)
           : form == FORM_PARTS ? form_parts(plan, msgid, head, values, tail)
           : form ? build_form(plan, msgid, head, values, tail, lists)
                  : build_message(text, plan, msgid, head, values, tail, line, file);
    goto done;
unsure:
    result = Py_None;
    Py_INCREF(result);
    goto done;
fail:
    result = NULL;
done:
    Py_DECREF(plan);
    for (int i = 0; i < HEAD; i++) Py_XDECREF(head[i]);
    Py_XDECREF(values);
    Py_XDECREF(msgid);
    Py_XDECREF(tail);
    return result;
}

/* scan_line_as, one copy per kind of str (one, two or four bytes a character). */
static PyObject *scan_line(PyObject *text, PyObject *plans, PyObject *receiver, PyObject *line, PyObject *file,
                           int quiet, int form, Py_ssize_t *refusal, PyObject **reason) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_line_as(PyUnicode_1BYTE_KIND, text, plans, receiver, line, file, quiet, form, refusal, reason);
    case PyUnicode_2BYTE_KIND:
        return scan_line_as(PyUnicode_2BYTE_KIND, text, plans, receiver, line, file, quiet, form, refusal, reason);
    default:
        return scan_line_as(PyUnicode_4BYTE_KIND, text, plans, receiver, line, file, quiet, form, refusal, reason);
    }
}

/* ---- a refused line's first fault ------------------------------------ */

enum { EXPECT_SPACE, EXPECT_SLOT_OR_MARK, EXPECT_TAIL, EXPECT_END };
#define SEEN_SIZE 256       /* keys remembered for the repeat; a line of more slots is left to Python */

static PyObject *syntax_fault(const Text *t, Py_ssize_t index, int expected) {
    /* a line break: the grammar's own error counts its columns per line, so Python words it */
    for (Py_ssize_t i = 0; i < t->len; i++)
        if (AT(t, i) == '\n') Py_RETURN_NONE;
    return Py_BuildValue("(innO)", FAULT_SYNTAX, index + 1, (Py_ssize_t)expected, Py_None);
}

/* The first fault of a line the scanner declined, where it is sure of it, or None: not sure.
 *
 * The walk is syntax.diagnose's, after a head it reads only when plain ("RW1 ", a type, a whole msgid
 * token): each slot taken greedily as the SLOT terminal is, then the tail mark and the tail, so a syntax
 * fault's column and expected terminals are the ones the grammar's error reports. A grammatical line
 * whose key repeats is refused at the first repeat, before any other check (semantics.check_raw). Any
 * other line is Python's to decide. */
static PyObject *first_fault(PyObject *text, int *clean) {
    Text t;
    if (!read_text(text, &t)) return NULL;
    Text *tp = &t;
    Py_ssize_t n = t.len;
    if (n < 4 || !equals_ascii(tp, 0, 4, "RW1 ")) Py_RETURN_NONE;
    Py_ssize_t pos = 4;
    while (pos < n && AT(tp, pos) >= 'A' && AT(tp, pos) <= 'Z') pos++;
    if (pos == 4 || pos >= n || AT(tp, pos) != ' ') Py_RETURN_NONE;
    Py_ssize_t id_s = ++pos;
    while (pos < n && AT(tp, pos) != ' ') pos++;
    if (!msgid_terminal(tp, id_s, pos)) Py_RETURN_NONE;
    /* the first repeated key: its slot's start and end; keys seen, by hash, as (start, length) */
    Py_ssize_t repeat_s = -1, repeat_e = -1, seen_s[SEEN_SIZE], seen_n[SEEN_SIZE];
    int seen_count = 0, tracking = 1;
    memset(seen_n, 0, sizeof seen_n);
    for (;;) {
        if (pos == n) break;  /* the whole line read: it is grammatical */
        if (AT(tp, pos) != ' ') return syntax_fault(tp, pos, EXPECT_SPACE);
        if (++pos == n) return syntax_fault(tp, n, EXPECT_SLOT_OR_MARK);
        if (is_lower(AT(tp, pos))) {  /* SLOT: [a-z][a-z0-9_]*=<value class>+, greedily */
            Py_ssize_t eq = pos + 1;
            while (eq < n && (is_lower(AT(tp, eq)) || is_digit(AT(tp, eq)) || AT(tp, eq) == '_')) eq++;
            Py_ssize_t e = eq + 1;
            if (eq < n && AT(tp, eq) == '=') {
                if (t.kind == PyUnicode_1BYTE_KIND) {
                    const Py_UCS1 *d = (const Py_UCS1 *)t.data;
                    while (e < n && value_byte[d[e]]) e++;
                } else {
                    for (; e < n; e++) {
                        Py_UCS4 c = AT(tp, e);
                        if (c < 256 ? !value_byte[c] : !slot_value_char(c)) break;
                    }
                }
            }
            if (eq < n && AT(tp, eq) == '=' && e > eq + 1) {
                if (tracking && repeat_s < 0) {
                    unsigned h = key_hash(tp, pos, eq) & (SEEN_SIZE - 1);
                    Py_ssize_t len = eq - pos;
                    for (;;) {
                        if (seen_n[h] == 0) {
                            if (seen_count >= SEEN_SIZE / 2) { tracking = 0; break; }
                            seen_s[h] = pos, seen_n[h] = len, seen_count++;
                            break;
                        }
                        if (seen_n[h] == len) {
                            Py_ssize_t i = 0;
                            while (i < len && AT(tp, seen_s[h] + i) == AT(tp, pos + i)) i++;
                            if (i == len) { repeat_s = pos, repeat_e = e; break; }
                        }
                        h = (h + 1) & (SEEN_SIZE - 1);
                    }
                }
                pos = e;
                continue;
            }
        }
        if (!(pos + 1 < n && AT(tp, pos) == '/' && AT(tp, pos + 1) == '/'))
            return syntax_fault(tp, pos, EXPECT_SLOT_OR_MARK);
        pos += 2;
        if (pos == n) return syntax_fault(tp, n, EXPECT_SPACE);
        if (AT(tp, pos) != ' ') return syntax_fault(tp, pos, EXPECT_SPACE);
        if (++pos == n) return syntax_fault(tp, n, EXPECT_TAIL);
        Py_ssize_t end = tail_end(tp, pos, n);
        if (end < 0) return syntax_fault(tp, pos, EXPECT_TAIL);
        if (end < n) return syntax_fault(tp, end, EXPECT_END);
        break;
    }
    if (repeat_s < 0) {
        *clean = tracking;  /* grammatical, and no key repeats */
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(innO)", FAULT_REPEATED, repeat_s + 1, repeat_e, Py_None);
}

static PyObject *core_plans = NULL;

/* The refusal accept() last saw for sure in a line it declined, for fault() to take instead of scanning the line
 * again (loads asks fault right after): the line and the receiver are held, so neither can be another object. */
static PyObject *declined_text = NULL, *declined_receiver = NULL, *declined_reason = NULL;
static Py_ssize_t declined[4];

/* fault(text, receiver=None): a refused line's first fault, (FAULT_SYNTAX, column, expected, None),
 * (FAULT_REPEATED, column, end, None), or with the receiver, on a grammatical line whose keys do not repeat,
 * the first refusal the scan meets when all before it in D10's order is settled: (FAULT_VALUE, column, end,
 * words) of the slot, words being what the ValueError of the slot's Python decoder says where that decoder
 * refused the value (else None), (FAULT_ID, column, end, None) of the id, (FAULT_MISSING, column, end, None)
 * of the slots, or (FAULT_RULE, column, end, index) of the slots where the scan's checks before the type's
 * rules passed and the rule at index in the type's rules is the first that does not hold (semantics.rule_refusal
 * words it); or None: not sure. */
static PyObject *fault(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "fault(text, receiver=None)");
        return NULL;
    }
    PyObject *text = args[0];
    Py_ssize_t found[4] = {-1, 0, 0, -1};
    PyObject *reason = NULL;
    int seen = nargs == 2 && declined_text == text && declined_receiver == args[1];
    if (seen) {
        memcpy(found, declined, sizeof found);
        reason = declined_reason;
        declined_reason = NULL;
    }
    Py_CLEAR(declined_text);
    Py_CLEAR(declined_receiver);
    Py_CLEAR(declined_reason);
    if (!PyUnicode_Check(text)) { Py_XDECREF(reason); Py_RETURN_NONE; }
    int clean = 0;
    PyObject *first = first_fault(text, &clean);
    if (first != Py_None || !clean || nargs < 2 || args[1] == Py_None || core_plans == NULL) {
        Py_XDECREF(reason);
        return first;
    }
    Py_DECREF(first);
    if (!seen) {  /* what accept saw, on a line now known grammatical with no repeated key; else scan it */
        PyObject *scanned = scan_line(text, core_plans, args[1], Py_None, Py_None, 0, 0, found, &reason);
        if (scanned == NULL) { Py_XDECREF(reason); return NULL; }
        Py_DECREF(scanned);
    }
    if (found[0] < 0) { Py_XDECREF(reason); Py_RETURN_NONE; }
    if (found[0] == FAULT_RULE) Py_CLEAR(reason);
    if (found[0] == FAULT_RULE && found[3] >= 0 && (reason = PyLong_FromSsize_t(found[3])) == NULL)
        return NULL;  /* the failed rule's index */
    return Py_BuildValue("(innN)", (int)found[0], found[1] + 1, found[2], reason == NULL ? Py_NewRef(Py_None) : reason);
}

/* ---- the module ------------------------------------------------------ */

static int configured(void) {
    if (core_plans != NULL) return 1;
    PyErr_SetString(PyExc_RuntimeError, "rogerwilco.core._scan is not configured (rogerwilco.core.scanner does it)");
    return 0;
}

/* An entry point's line: a str (else the TypeError the Python path raises), with the tables configured. */
static int line_argument(PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "str object expected; got %s", text == Py_None ? "None" : Py_TYPE(text)->tp_name);
        return 0;
    }
    return configured();
}

/* accept(text, receiver, line=None, file=None, quiet=False): the Message, or None: not sure. */
static PyObject *accept(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 5) {
        PyErr_SetString(PyExc_TypeError, "accept(text, receiver, line=None, file=None, quiet=False)");
        return NULL;
    }
    if (!line_argument(args[0])) return NULL;
    int quiet = nargs == 5 ? PyObject_IsTrue(args[4]) : 0;
    if (quiet < 0) return NULL;
    Py_ssize_t found[4] = {-1, 0, 0, -1};
    PyObject *reason = NULL;
    PyObject *result = scan_line(args[0], core_plans, args[1], nargs >= 3 ? args[2] : Py_None,
                                 nargs >= 4 ? args[3] : Py_None, quiet, 0, quiet ? NULL : found, &reason);
    if (result == Py_None && found[0] >= 0) {  /* kept for fault(), which loads asks next */
        Py_INCREF(args[0]);
        Py_XSETREF(declined_text, args[0]);
        Py_INCREF(args[1]);
        Py_XSETREF(declined_receiver, args[1]);
        Py_XSETREF(declined_reason, reason);
        memcpy(declined, found, sizeof found);
    } else {
        Py_XDECREF(reason);
    }
    return result;
}

/* form(text, receiver): the JSON form of a line the scanner is sure of (a dict, as accept.json_form gives it),
 * or None; the batch path's first try, no Message built. */
static PyObject *form(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "form(text, receiver)");
        return NULL;
    }
    if (!line_argument(args[0])) return NULL;
    return scan_line(args[0], core_plans, args[1], Py_None, Py_None, 0, 1, NULL, NULL);
}

/* verdict(text, plans, profiles): True where the quiet scan is sure the line is valid and the full pass has
 * nothing to say of it (no finding, no note), under plans (type name -> make_plan's tables: the core's) and
 * profiles (profile name -> such plans: the profiles held); None: not sure. Nothing is built and nothing need be
 * configured: a plan made from data alone (no decoder, a rule only its closure decides declining) serves, which
 * is how `rogerwilco validate` settles a short input of valid lines before the package is loaded
 * (rogerwilco.front.quick). */
static PyObject *verdict(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_CheckExact(args[1]) || !PyDict_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "verdict(text, plans, profiles): plans and profiles are dicts");
        return NULL;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "str object expected; got %s", Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    return scan_line(args[0], args[1], args[2], Py_None, Py_None, 1, FORM_VERDICT, NULL, NULL);
}

/* forms(lines, receiver, rest): the batch path as one iterator, each line's JSON form where the scanner is sure of
 * it, else what rest(text, receiver, number) gives (the Python path's form, or the line's LineResult); line
 * numbers count from 1. No Python frame runs for a line the scanner settles. */
typedef struct {
    PyObject_HEAD
    PyObject *lines;     /* the iterator over the lines */
    PyObject *receiver;
    PyObject *rest;
    Py_ssize_t number;
} Forms;

static int forms_traverse(Forms *self, visitproc visit, void *arg) {
    Py_VISIT(self->lines);
    Py_VISIT(self->receiver);
    Py_VISIT(self->rest);
    return 0;
}

static int forms_clear(Forms *self) {
    Py_CLEAR(self->lines);
    Py_CLEAR(self->receiver);
    Py_CLEAR(self->rest);
    return 0;
}

static void forms_dealloc(Forms *self) {
    PyObject_GC_UnTrack(self);
    forms_clear(self);
    PyObject_GC_Del(self);
}

static PyObject *forms_step(Forms *self) {
    PyObject *text = PyIter_Next(self->lines);
    if (text == NULL) return NULL;  /* the end, or the lines' own error */
    self->number++;
    if (!line_argument(text)) { Py_DECREF(text); return NULL; }  /* what form() says of a line that is no str */
    PyObject *found = scan_line(text, core_plans, self->receiver, Py_None, Py_None, 0, 1, NULL, NULL);
    if (found != Py_None) { Py_DECREF(text); return found; }  /* the form, or the scanner's error */
    Py_DECREF(found);
    PyObject *number = PyLong_FromSsize_t(self->number);
    if (number == NULL) { Py_DECREF(text); return NULL; }
    PyObject *out = PyObject_CallFunctionObjArgs(self->rest, text, self->receiver, number, NULL);
    Py_DECREF(number);
    Py_DECREF(text);
    return out;
}

/* The next item; at the end, or after an error (as a generator that raised), the iterator is done for good. */
static PyObject *forms_next(Forms *self) {
    if (self->lines == NULL) return NULL;
    PyObject *out = forms_step(self);
    if (out == NULL) forms_clear(self);
    return out;
}

static PyTypeObject FormsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rogerwilco.core._scan.Forms",
    .tp_basicsize = sizeof(Forms),
    .tp_dealloc = (destructor)forms_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The batch path's iterator: each line's JSON form, or what the Python path gives for it.",
    .tp_traverse = (traverseproc)forms_traverse,
    .tp_clear = (inquiry)forms_clear,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)forms_next,
};

static PyObject *forms(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "forms(lines, receiver, rest)");
        return NULL;
    }
    if (!configured()) return NULL;
    PyObject *lines = PyObject_GetIter(args[0]);
    if (lines == NULL) return NULL;
    Forms *self = PyObject_GC_New(Forms, &FormsType);
    if (self == NULL) { Py_DECREF(lines); return NULL; }
    self->lines = lines;
    self->receiver = Py_NewRef(args[1]);
    self->rest = Py_NewRef(args[2]);
    self->number = 0;
    PyObject_GC_Track(self);
    return (PyObject *)self;
}

static PyObject *configure(PyObject *module, PyObject *args) {
    PyObject *mtype, *stype, *descrs, *resolver, *foreigner, *plans;
    if (!PyArg_ParseTuple(args, "O!O!O!OOO!", &PyType_Type, &mtype, &PyType_Type, &stype, &PyTuple_Type, &descrs,
                          &resolver, &foreigner, &PyDict_Type, &plans))
        return NULL;
    if (PyTuple_GET_SIZE(descrs) != FIELDS || !PyType_IsSubtype((PyTypeObject *)stype, &PyTuple_Type)) {
        PyErr_SetString(PyExc_ValueError, "configure: a Message's 10 slot descriptors and a tuple type for Source");
        return NULL;
    }
    for (int i = 0; i < FIELDS; i++) {
        PyObject *d = PyTuple_GET_ITEM(descrs, i);
        if (Py_TYPE(d)->tp_descr_set == NULL) {
            PyErr_SetString(PyExc_ValueError, "configure: a field without a setter");
            return NULL;
        }
    }
    for (int i = 0; i < FIELDS; i++) {
        Py_INCREF(PyTuple_GET_ITEM(descrs, i));
        Py_XSETREF(setters[i], PyTuple_GET_ITEM(descrs, i));
    }
    Py_INCREF(mtype); Py_XSETREF(message_type, (PyTypeObject *)mtype);
    Py_INCREF(stype); Py_XSETREF(source_type, (PyTypeObject *)stype);
    Py_INCREF(resolver); Py_XSETREF(resolve, resolver);
    Py_INCREF(foreigner); Py_XSETREF(foreign, foreigner);
    Py_INCREF(plans); Py_XSETREF(core_plans, plans);
    forget_profiles();
    Py_RETURN_NONE;
}

/* Test hooks: the native checks alone, so a test can set them beside their Python twins. */
static PyObject *check(PyObject *module, PyObject *args) {
    const char *what;
    PyObject *text;
    if (!PyArg_ParseTuple(args, "sU", &what, &text)) return NULL;
    Text t;
    if (!read_text(text, &t)) return NULL;
    int ok = 0;
    if (strcmp(what, "msgid_terminal") == 0) ok = msgid_terminal(&t, 0, t.len);
    else if (strcmp(what, "slot_value") == 0) {
        ok = t.len > 0;
        for (Py_ssize_t i = 0; ok && i < t.len; i++) ok = slot_value_char(AT(&t, i));
    } else if (strcmp(what, "tail") == 0) ok = tail_terminal(&t, 0, t.len);
    else if (strcmp(what, "tail_end") == 0) return PyLong_FromSsize_t(tail_end(&t, 0, t.len));
    else {
        PyErr_Format(PyExc_ValueError, "no check %s", what);
        return NULL;
    }
    return PyBool_FromLong(ok);
}

/* native(kind, text, lo, hi, codes): a value's native decoding alone, or None: not sure. */
static PyObject *native_hook(PyObject *module, PyObject *args) {
    Spec spec = {0};
    PyObject *text, *codes;
    if (!PyArg_ParseTuple(args, "iiULLO", &spec.kind, &spec.inner, &text, &spec.lo, &spec.hi, &codes)) return NULL;
    if (spec.kind < 0 || spec.kind >= K_CALL || spec.inner < 0 || spec.inner >= K_LIST
            || ((spec.kind == K_SET || spec.inner == K_SET) && !PyFrozenSet_Check(codes))) {
        PyErr_SetString(PyExc_ValueError, "not a native kind");
        return NULL;
    }
    spec.codes = codes;
    Text t;
    if (!read_text(text, &t)) return NULL;
    if (PyFrozenSet_Check(codes)) spec.table = code_table(codes);  /* as make_plan builds it */
    PyObject *value = spec.kind == K_LIST ? native_list(&spec, text, &t, 0, t.len)
                                          : native(spec.kind, &spec, text, &t, 0, t.len);
    PyMem_Free(spec.table);
    if (value == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return value;
}

/* dumps(value): JSON text of a value, exactly as json.dumps(value, ensure_ascii=True) writes it, or None: not sure.
 *
 * It writes what a record is made of: str (escaped as json's encode_basestring_ascii does: the short escapes,
 * \u00XX for other controls and for DEL and above, a code point past the BMP as its surrogate pair, a lone
 * surrogate as itself), exact int, bool, None, and lists and dicts (str keys) of these, at most JSON_DEPTH
 * deep. Anything else (a float, a subclass, a non-str key, deeper nesting) is "not sure": json.dumps writes it.
 *
 * Hostile input: the text is ASCII and grows in a buffer whose every write is preceded by a check of the room
 * left; a string's room (12 bytes a code point at most) is checked for overflow before it is reserved. */
#define JSON_DEPTH 16

typedef struct {
    char *data;
    Py_ssize_t len, cap;
} Out;

/* Room for n more bytes: 0, or -1 with MemoryError set. */
static int out_room(Out *out, Py_ssize_t n) {
    if (n < 0 || n > PY_SSIZE_T_MAX / 2 - out->len) { PyErr_NoMemory(); return -1; }
    if (out->len + n <= out->cap) return 0;
    Py_ssize_t cap = out->cap ? out->cap : 256;
    while (cap < out->len + n) cap *= 2;
    char *grown = PyMem_Realloc(out->data, (size_t)cap);
    if (grown == NULL) { PyErr_NoMemory(); return -1; }
    out->data = grown;
    out->cap = cap;
    return 0;
}

static int out_ascii(Out *out, const char *s, Py_ssize_t n) {
    if (out_room(out, n) < 0) return -1;
    memcpy(out->data + out->len, s, (size_t)n);
    out->len += n;
    return 0;
}

static const char hex_digits[] = "0123456789abcdef";

static void put_unit(char *p, Py_UCS4 u) {   /* \uXXXX: 6 bytes */
    p[0] = '\\'; p[1] = 'u';
    p[2] = hex_digits[(u >> 12) & 0xf]; p[3] = hex_digits[(u >> 8) & 0xf];
    p[4] = hex_digits[(u >> 4) & 0xf]; p[5] = hex_digits[u & 0xf];
}

/* How a JSON text is written: json.dumps's default separators and ASCII escapes (ensure_ascii=True), or the compact
 * separators with every character past ASCII as itself (ensure_ascii=False, separators=(",", ":")). */
typedef struct {
    const char *comma, *colon;
    Py_ssize_t comma_len, colon_len;
    int ascii;
    int escape_surrogates;   /* compact: a lone surrogate as its escape (\ud800), for Arrow */
} Style;
static const Style ASCII_STYLE = {", ", ": ", 2, 2, 1, 0};
static const Style COMPACT_STYLE = {",", ":", 1, 1, 0, 0};
/* compact, then a lone surrogate as the six characters of its escape (U+D800: \ud800): the text
 * json.dumps(ensure_ascii=False, separators=(",", ":")) writes, encoded as Arrow's columns are (UTF-8,
 * backslashreplace) */
static const Style ARROW_STYLE = {",", ":", 1, 1, 0, 1};

/* A string as the style writes it: 1, 0: not sure (a lone surrogate, which UTF-8 cannot carry), -1. ASCII: the
 * short escapes, \u00XX for the other controls and for DEL and above, a code point past the BMP as its surrogate
 * pair, a lone surrogate as itself (json's encode_basestring_ascii). Compact: the short escapes and \u00XX for the
 * other controls, any other character as itself in UTF-8 (wide set; encode_basestring). The room is checked for
 * the most a code point takes (12 bytes, or 6), the count checked for overflow before it is reserved. */
static int out_text(Out *out, PyObject *s, const Style *style, int *wide) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    Py_ssize_t most = style->ascii ? 12 : 6;
    if (n > (PY_SSIZE_T_MAX / 2 - 2) / most) { PyErr_NoMemory(); return -1; }
    if (out_room(out, most * n + 2) < 0) return -1;
    Py_UCS4 plain_below = style->ascii ? 0x7f : 0x80;   /* DEL is escaped with ensure_ascii alone */
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    char *p = out->data + out->len;
    *p++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = read_char(kind, data, i);
        if (c >= ' ' && c < plain_below && c != '\\' && c != '"') { *p++ = (char)c; continue; }
        switch (c) {
        case '\\': *p++ = '\\'; *p++ = '\\'; continue;
        case '"': *p++ = '\\'; *p++ = '"'; continue;
        case '\b': *p++ = '\\'; *p++ = 'b'; continue;
        case '\f': *p++ = '\\'; *p++ = 'f'; continue;
        case '\n': *p++ = '\\'; *p++ = 'n'; continue;
        case '\r': *p++ = '\\'; *p++ = 'r'; continue;
        case '\t': *p++ = '\\'; *p++ = 't'; continue;
        default: break;
        }
        if (style->ascii || c < ' ') {
            if (c >= 0x10000) {   /* past the BMP: its UTF-16 surrogate pair */
                put_unit(p, 0xD800 + ((c - 0x10000) >> 10)); p += 6;
                put_unit(p, 0xDC00 + ((c - 0x10000) & 0x3FF)); p += 6;
            } else {
                put_unit(p, c); p += 6;
            }
            continue;
        }
        if (c >= 0xD800 && c <= 0xDFFF) {   /* a lone surrogate: json.dumps writes it, or its escape for Arrow */
            if (!style->escape_surrogates) return 0;
            put_unit(p, c); p += 6;
            continue;
        }
        *wide = 1;
        if (c < 0x800) {
            *p++ = (char)(0xC0 | (c >> 6));
            *p++ = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            *p++ = (char)(0xE0 | (c >> 12));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (char)(0x80 | (c & 0x3F));
        } else {
            *p++ = (char)(0xF0 | (c >> 18));
            *p++ = (char)(0x80 | ((c >> 12) & 0x3F));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (char)(0x80 | (c & 0x3F));
        }
    }
    *p++ = '"';
    out->len = p - out->data;
    return 1;
}

/* 1: written, 0: not sure (no error set), -1: an error. wide: set when a character past ASCII was written. */
static int out_json(Out *out, PyObject *value, int depth, const Style *style, int *wide) {
    if (value == Py_None) return out_ascii(out, "null", 4) < 0 ? -1 : 1;
    if (value == Py_True) return out_ascii(out, "true", 4) < 0 ? -1 : 1;
    if (value == Py_False) return out_ascii(out, "false", 5) < 0 ? -1 : 1;
    if (PyUnicode_CheckExact(value)) return out_text(out, value, style, wide);
    if (PyLong_CheckExact(value)) {
        int overflow = 0;
        long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow) return 0;
        if (n == -1 && PyErr_Occurred()) return -1;
        char digits[32];
        int written = snprintf(digits, sizeof digits, "%lld", n);
        if (written <= 0 || (size_t)written >= sizeof digits) return 0;
        return out_ascii(out, digits, written) < 0 ? -1 : 1;
    }
    if (depth >= JSON_DEPTH) return 0;
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {   /* a tuple as json.dumps writes it: a list */
        if (out_ascii(out, "[", 1) < 0) return -1;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(value); i++) {   /* read again: nothing here runs Python */
            if (i > 0 && out_ascii(out, style->comma, style->comma_len) < 0) return -1;
            int done = out_json(out, PySequence_Fast_GET_ITEM(value, i), depth + 1, style, wide);
            if (done <= 0) return done;
        }
        return out_ascii(out, "]", 1) < 0 ? -1 : 1;
    }
    if (PyDict_CheckExact(value)) {
        if (out_ascii(out, "{", 1) < 0) return -1;
        Py_ssize_t at = 0, i = 0;
        PyObject *key, *item;
        while (PyDict_Next(value, &at, &key, &item)) {
            if (!PyUnicode_CheckExact(key)) return 0;
            if (i++ > 0 && out_ascii(out, style->comma, style->comma_len) < 0) return -1;
            int done = out_text(out, key, style, wide);
            if (done <= 0) return done;
            if (out_ascii(out, style->colon, style->colon_len) < 0) return -1;
            done = out_json(out, item, depth + 1, style, wide);
            if (done <= 0) return done;
        }
        return out_ascii(out, "}", 1) < 0 ? -1 : 1;
    }
    return 0;
}

static int out_value(Out *out, PyObject *value, int depth) {
    int wide = 0;
    return out_json(out, value, depth, &ASCII_STYLE, &wide);
}

static int out_compact(Out *out, PyObject *value, int depth, int *wide) {
    return out_json(out, value, depth, &COMPACT_STYLE, wide);
}

/* A time in UTC as RFC 3339 text with microseconds and "Z", quoted (a record's ts): 1, 0: not sure (another zone,
 * no zone, a year before 1000, a subclass), -1. */
static int out_utc(Out *out, PyObject *value) {
    if (!PyDateTime_CheckExact(value) || PyDateTime_DATE_GET_TZINFO(value) != PyDateTime_TimeZone_UTC) return 0;
    int year = PyDateTime_GET_YEAR(value);
    if (year < 1000) return 0;
    char text[40];
    int written = snprintf(text, sizeof text, "\"%04d-%02d-%02dT%02d:%02d:%02d.%06dZ\"", year,
                           PyDateTime_GET_MONTH(value), PyDateTime_GET_DAY(value), PyDateTime_DATE_GET_HOUR(value),
                           PyDateTime_DATE_GET_MINUTE(value), PyDateTime_DATE_GET_SECOND(value),
                           PyDateTime_DATE_GET_MICROSECOND(value));
    if (written != 29) return 0;
    return out_ascii(out, text, written) < 0 ? -1 : 1;
}

/* The JSON text of the object of keys[i]: values[i] (two tuples of one length, str keys; a value that is a time in
 * UTC written as its RFC 3339 text): 1, 0: not sure, -1. */
/* datetime's C API, imported on the first call that reads or writes a time (importing datetime costs a process
 * that only checks lines, as `rogerwilco validate` does, about a millisecond and a half): 1, or 0 with the error set. */
static int datetime_ready(void) {
    if (PyDateTimeAPI == NULL) PyDateTime_IMPORT;
    return PyDateTimeAPI != NULL;
}

static int out_object(Out *out, PyObject *keys, PyObject *values) {
    if (!PyTuple_CheckExact(keys) || !PyTuple_CheckExact(values) || PyTuple_GET_SIZE(keys) != PyTuple_GET_SIZE(values))
        return 0;
    if (out_ascii(out, "{", 1) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        if (!PyUnicode_CheckExact(key)) return 0;
        if (i > 0 && out_ascii(out, ", ", 2) < 0) return -1;
        int wide = 0;
        if (out_text(out, key, &ASCII_STYLE, &wide) < 0 || out_ascii(out, ": ", 2) < 0) return -1;
        PyObject *value = PyTuple_GET_ITEM(values, i);
        int done = PyDateTime_Check(value) ? out_utc(out, value) : out_value(out, value, 1);
        if (done <= 0) return done;
    }
    return out_ascii(out, "}", 1) < 0 ? -1 : 1;
}

/* The text written (1), None (0: not sure) or NULL (-1, the error set); the buffer freed. */
static PyObject *written(Out *out, int done) {
    PyObject *text = NULL;
    if (done == 1) {
        text = PyUnicode_New(out->len, 127);
        if (text != NULL) memcpy(PyUnicode_DATA(text), out->data, (size_t)out->len);
    } else if (done == 0) {
        text = Py_None;
        Py_INCREF(text);
    }
    PyMem_Free(out->data);
    return text;
}

/* dumps_object(keys, values): json.dumps(dict(zip(keys, values)), ensure_ascii=True) with no dict in between
 * (a record's line of JSON Lines; its ts, a time in UTC, as RFC 3339 text), or None: not sure. */
static PyObject *dumps_object(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "dumps_object(keys, values)");
        return NULL;
    }
    if (!datetime_ready()) return NULL;
    Out out = {NULL, 0, 0};
    return written(&out, out_object(&out, args[0], args[1]));
}

/* ---- a scan's message record, written from the line ------------------------------------------------------ */

#define ROW_FIELDS 20   /* a record's columns (rogerwilco.io.records.COLUMNS) */
#define ROW_JSON 12     /* the json column's index among them */
static PyObject *record_message = NULL;   /* "message" */

/* The JSON form of parts (form_parts' tuple) as json.dumps writes it, ensure_ascii: 1, 0: not sure, -1. */
static int out_form(Out *out, PyObject *parts) {
    PyObject *names[FORM_FIELDS] = {key_v, key_type, key_id, key_re, key_from, key_to, key_item, key_slots, key_tail};
    if (out_ascii(out, "{", 1) < 0) return -1;
    for (int i = 0; i < FORM_FIELDS; i++) {
        int wide = 0;
        if ((i > 0 && out_ascii(out, ", ", 2) < 0) || out_text(out, names[i], &ASCII_STYLE, &wide) < 0
                || out_ascii(out, ": ", 2) < 0)
            return -1;
        int done = out_value(out, i == 0 ? version : PyTuple_GET_ITEM(parts, i - 1), 2);
        if (done <= 0) return done;
    }
    return out_ascii(out, "}", 1) < 0 ? -1 : 1;
}

/* row(text, receiver, keys, file, line, column, field, ts, version): the line of JSON Lines (its newline
 * included) of the message record of a candidate the scanner is sure of, as Record.to_jsonl writes it, or None:
 * not sure (the candidate goes the Python way: json_form, Record, to_jsonl). No Message, no form dict and no Record
 * are built: the values the scan decoded are written where they stand. keys: the record's columns in order (their
 * values are the candidate's: record "message", file, line, column, field, text, the envelope, the form, why,
 * reason, token and message null, version, ts, unvalidated false); ts a time in UTC, or None. */
/* The row of text (a candidate) with the other cells given, or None: not sure; *type set to the message's type
 * (a new reference) where type is not NULL and a row is written. */
static PyObject *write_row(PyObject *text, PyObject *receiver, PyObject *keys, PyObject *file, PyObject *line,
                           PyObject *column, PyObject *field, PyObject *ts, PyObject *version, PyObject **type) {
    if (PyTuple_GET_SIZE(keys) != ROW_FIELDS) {
        PyErr_SetString(PyExc_TypeError, "a record's keys: a tuple of its 20 columns");
        return NULL;
    }
    if (ts != Py_None && !PyDateTime_Check(ts)) Py_RETURN_NONE;
    PyObject *parts = scan_line(text, core_plans, receiver, Py_None, Py_None, 0, FORM_PARTS, NULL, NULL);
    if (parts == NULL || parts == Py_None) return parts;
    PyObject *const *p = &PyTuple_GET_ITEM(parts, 0);
    PyObject *cells[ROW_FIELDS] = {record_message, file, line, column, field, text, p[0], p[1], p[3], p[4], p[2],
                                   p[5], NULL, Py_None, Py_None, Py_None, Py_None, version, ts, Py_False};
    Out out = {NULL, 0, 0};
    int done = out_ascii(&out, "{", 1) < 0 ? -1 : 1;
    for (int i = 0; done == 1 && i < ROW_FIELDS; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        int wide = 0;
        if (!PyUnicode_CheckExact(key)) { done = 0; break; }
        if ((i > 0 && out_ascii(&out, ", ", 2) < 0) || out_text(&out, key, &ASCII_STYLE, &wide) < 0
                || out_ascii(&out, ": ", 2) < 0) {
            done = -1;
            break;
        }
        PyObject *cell = cells[i];
        done = i == ROW_JSON ? out_form(&out, parts)
             : cell != Py_None && PyDateTime_Check(cell) ? out_utc(&out, cell) : out_value(&out, cell, 1);
    }
    if (done == 1 && out_ascii(&out, "}\n", 2) < 0) done = -1;
    if (done == 1 && type != NULL) *type = Py_NewRef(p[0]);
    Py_DECREF(parts);
    return written(&out, done);
}

/* row(text, receiver, keys, file, line, column, field, ts, version): the line of JSON Lines (its newline
 * included) of the message record of a candidate the scanner is sure of, as Record.to_jsonl writes it, or None:
 * not sure (the candidate goes the Python way: json_form, Record, to_jsonl). No Message, no form dict and no Record
 * are built: the values the scan decoded are written where they stand. keys: the record's columns in order (their
 * values are the candidate's: record "message", file, line, column, field, text, the envelope, the form, why,
 * reason, token and message null, version, ts, unvalidated false); ts a time in UTC, or None. */
static PyObject *row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9 || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "row(text, receiver, keys, file, line, column, field, ts, version)");
        return NULL;
    }
    if (!line_argument(args[0]) || !datetime_ready()) return NULL;
    return write_row(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], NULL);
}

static PyObject *dumps(PyObject *module, PyObject *value) {
    Out out = {NULL, 0, 0};
    return written(&out, out_value(&out, value, 0));
}

/* ---- the json column of Arrow records, column by column -------------------------------------------------
 *
 * compact(value): the JSON text json.dumps(value, ensure_ascii=False, separators=(",", ":")) writes (a record's
 * JSON form as Parquet's text column holds it, its slots as the struct column holds them), or None: not sure. It
 * writes what out_value writes, compactly, and a character past ASCII as itself (UTF-8 here, decoded once at the
 * end): only '"', '\\' and the controls below U+0020 are escaped, as json's encode_basestring does. A lone
 * surrogate (which UTF-8 cannot carry; json.dumps keeps it, and the Arrow writer escapes it then) is not sure.
 * out_json writes both (COMPACT_STYLE here). */

/* The text written (1), None (0: not sure) or NULL (-1, the error set); the buffer kept for the next value. */
static PyObject *compact_written(Out *out, int done, int wide) {
    if (done == 1) {
        if (!wide) {
            PyObject *text = PyUnicode_New(out->len, 127);
            if (text != NULL) memcpy(PyUnicode_DATA(text), out->data, (size_t)out->len);
            return text;
        }
        return PyUnicode_DecodeUTF8(out->data, out->len, "strict");
    }
    if (done == 0) Py_RETURN_NONE;
    return NULL;
}

static PyObject *compact(PyObject *module, PyObject *value) {
    Out out = {NULL, 0, 0};
    int wide = 0;
    int done = out_compact(&out, value, 0, &wide);
    PyObject *text = compact_written(&out, done, wide);
    PyMem_Free(out.data);
    return text;
}

/* struct_columns(forms, keys): the json struct column of a batch of records, as columns. forms is a list of
 * JSON forms (dicts) or None; keys a tuple of str. The answer is (columns, unsure): columns holds a list for each
 * key (forms[i].get(key), None where the form is None) and then one of the slots' texts
 * (compact(forms[i].get("slots") or {}), None where the form is None); unsure lists the indexes of the forms it
 * is not sure of (not an exact dict, slots that are neither None nor an exact dict, or that compact() is not sure
 * of), whose entries are None in every column: the caller writes them. A key lookup may run Python code (a form
 * may hold a key of any type, whose __eq__ runs on a hash collision): the forms are read from a tuple copied first,
 * which holds each form, so nothing it does to the list or to a form can leave a pointer dangling. */
static PyObject *struct_columns(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "struct_columns(forms: list, keys: tuple)");
        return NULL;
    }
    PyObject *keys = args[1];
    Py_ssize_t k = PyTuple_GET_SIZE(keys);
    for (Py_ssize_t j = 0; j < k; j++) {
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(keys, j))) {
            PyErr_SetString(PyExc_TypeError, "struct_columns: the keys are str");
            return NULL;
        }
    }
    PyObject *forms = PyList_AsTuple(args[0]);
    if (forms == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(forms);
    PyObject *columns = PyList_New(k + 1), *unsure = PyList_New(0), *empty = NULL;
    Out out = {NULL, 0, 0};
    if (columns == NULL || unsure == NULL) goto error;
    for (Py_ssize_t j = 0; j <= k; j++) {
        PyObject *column = PyList_New(n);
        if (column == NULL) goto error;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(column, i, Py_None);
        }
        PyList_SET_ITEM(columns, j, column);
    }
    empty = PyUnicode_FromString("{}");
    if (empty == NULL) goto error;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *form = PyTuple_GET_ITEM(forms, i);
        if (form == Py_None) continue;
        PyObject *text = NULL;
        if (PyDict_CheckExact(form)) {
            PyObject *slots = PyDict_GetItemWithError(form, key_slots);
            if (slots == NULL && PyErr_Occurred()) goto error;
            if (slots == NULL || slots == Py_None) {
                text = empty;
                Py_INCREF(text);
            } else if (PyDict_CheckExact(slots)) {
                int wide = 0;
                out.len = 0;
                int done = out_compact(&out, slots, 1, &wide);
                if (done < 0) goto error;
                if (done == 1) {
                    text = compact_written(&out, done, wide);
                    if (text == NULL) goto error;
                }
            }
        }
        if (text == NULL) {   /* not sure: the caller writes it */
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(unsure, index) < 0) { Py_XDECREF(index); goto error; }
            Py_DECREF(index);
            continue;
        }
        PyObject *column = PyList_GET_ITEM(columns, k);
        if (PyList_SetItem(column, i, text) < 0) goto error;   /* (text taken; the None it held released) */
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *value = PyDict_GetItemWithError(form, PyTuple_GET_ITEM(keys, j));
            if (value == NULL) {
                if (PyErr_Occurred()) goto error;
                continue;
            }
            Py_INCREF(value);
            if (PyList_SetItem(PyList_GET_ITEM(columns, j), i, value) < 0) goto error;
        }
    }
    PyMem_Free(out.data);
    Py_DECREF(empty);
    Py_DECREF(forms);
    PyObject *answer = PyTuple_Pack(2, columns, unsure);
    Py_DECREF(columns);
    Py_DECREF(unsure);
    return answer;
error:
    PyMem_Free(out.data);
    Py_XDECREF(empty);
    Py_DECREF(forms);
    Py_XDECREF(columns);
    Py_XDECREF(unsure);
    return NULL;
}

/* ---- a log line's time, for scan's ts column -------------------------------------------------------------
 *
 * utc_time(text, end, whole): the time that text[:end] starts with when it is written YYYY-MM-DD, "T" or " ",
 * HH:MM:SS, an optional fraction ("." or "," and 1 to 9 digits, cut to microseconds), and "Z" or "z", followed by
 * no ASCII digit (whole: by nothing), as a datetime in UTC; None: not sure (any other form, a non-ASCII digit, a
 * leap second, a date or time that does not exist), and Python reads the text then. What it gives is what scan's
 * regular expression and datetime give for that form (rogerwilco.io.scan.timestamps). */
static int ascii_digits(const Text *tp, Py_ssize_t at, int count, int *value) {
    int v = 0;
    for (int k = 0; k < count; k++) {
        Py_UCS4 c = AT(tp, at + k);
        if (c < '0' || c > '9') return 0;
        v = v * 10 + (int)(c - '0');
    }
    *value = v;
    return 1;
}

/* The time in UTC that text[:end] starts with (whole: is), or None: not sure; datetime_ready() called. */
static PyObject *utc_prefix(const Text *tp, Py_ssize_t end, int whole) {
    if (end > tp->len) end = tp->len;
    if (end < 20) Py_RETURN_NONE;
    int year, month, day, hour, minute, second, micro = 0;
    if (!ascii_digits(tp, 0, 4, &year) || AT(tp, 4) != '-' || !ascii_digits(tp, 5, 2, &month) || AT(tp, 7) != '-'
            || !ascii_digits(tp, 8, 2, &day) || (AT(tp, 10) != 'T' && AT(tp, 10) != ' ')
            || !ascii_digits(tp, 11, 2, &hour) || AT(tp, 13) != ':' || !ascii_digits(tp, 14, 2, &minute)
            || AT(tp, 16) != ':' || !ascii_digits(tp, 17, 2, &second))
        Py_RETURN_NONE;
    Py_ssize_t i = 19;
    if (AT(tp, i) == '.' || AT(tp, i) == ',') {
        Py_ssize_t s = ++i;
        while (i < end && i - s < 10 && AT(tp, i) >= '0' && AT(tp, i) <= '9') {
            if (i - s < 6) micro = micro * 10 + (int)(AT(tp, i) - '0');
            i++;
        }
        if (i == s || i - s > 9) Py_RETURN_NONE;
        for (Py_ssize_t k = i - s; k < 6; k++) micro *= 10;
    }
    if (i >= end || (AT(tp, i) != 'Z' && AT(tp, i) != 'z')) Py_RETURN_NONE;
    i++;
    if (whole ? i != end : i < end && AT(tp, i) >= '0' && AT(tp, i) <= '9') Py_RETURN_NONE;
    if (second == 60) Py_RETURN_NONE;   /* a leap second: Python reads it as the last instant of its minute */
    PyObject *ts = PyDateTimeAPI->DateTime_FromDateAndTime(year, month, day, hour, minute, second, micro,
                                                           PyDateTime_TimeZone_UTC, PyDateTimeAPI->DateTimeType);
    if (ts == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {   /* no such date or time: Python says so */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return ts;
}

static PyObject *utc_time(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "utc_time(text, end, whole)");
        return NULL;
    }
    if (!datetime_ready()) return NULL;
    Text t;
    if (!read_text(args[0], &t)) return NULL;
    Py_ssize_t end = PyLong_AsSsize_t(args[1]);
    if (end == -1 && PyErr_Occurred()) return NULL;
    int whole = PyObject_IsTrue(args[2]);
    if (whole < 0) return NULL;
    return utc_prefix(&t, end, whole);
}

/* ---- a scan's plain log line, from its bytes' text to its record --------------------------------------------
 *
 * line_row(text, receiver, keys, file, line, version): (type, the line of JSON Lines of its one record) for a log
 * line that is its own frame and holds one candidate, the scanner sure of it, its time read; None: not sure (the
 * line goes through rogerwilco.io.scan.records.records_of_line). Sure means each step is the one the Python path
 * takes, by a narrower road:
 * - the frame: the line does not start (past whitespace) with { [ or ", and nothing in it is JSON-shaped (frames'
 *   _EMBEDDED_JSON: { then whitespace then " or }, [ then whitespace then one of "{[]0-9tfn-);
 * - the candidate: the first "RW" with no letter or digit before it is followed by digits, one space and an
 *   uppercase letter (CANDIDATE_RE's wire form; any other "RW" that could start a match: not sure); the character
 *   before it opens no code span, quote or wrapper, so the candidate runs to the line's end; it holds no undecodable
 *   byte (U+DC80..U+DCFF);
 * - the time: the prefix starts with a time utc_time reads, or holds no ASCII digit (no time); any other: not sure.
 * The record's column is the candidate's (1-based), its field null. */
static int json_shaped(const Text *tp) {
    for (Py_ssize_t i = 0; i < tp->len; i++) {
        Py_UCS4 c = AT(tp, i);
        if (c != '{' && c != '[') continue;
        Py_ssize_t j = i + 1;
        while (j < tp->len && Py_UNICODE_ISSPACE(AT(tp, j))) j++;
        if (j >= tp->len) continue;
        Py_UCS4 d = AT(tp, j);
        if (c == '{' ? (d == '"' || d == '}')
                     : (d == '"' || d == '{' || d == '[' || d == ']' || is_digit(d) || d == 't' || d == 'f'
                        || d == 'n' || d == '-'))
            return 1;
    }
    return 0;
}

/* The candidate's start, -1: none can start here (no RW with digits after it), -2: not sure. */
static Py_ssize_t plain_candidate(const Text *tp) {
    for (Py_ssize_t i = 0; i + 1 < tp->len; i++) {
        if (AT(tp, i) != 'R' || AT(tp, i + 1) != 'W') continue;
        if (i > 0) {
            Py_UCS4 b = AT(tp, i - 1);
            if (is_digit(b) || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) continue;
        }
        Py_ssize_t j = i + 2;
        while (j < tp->len && is_digit(AT(tp, j))) j++;
        if (j == i + 2) continue;
        if (j + 1 < tp->len && AT(tp, j) == ' ' && AT(tp, j + 1) >= 'A' && AT(tp, j + 1) <= 'Z') return i;
        return -2;
    }
    return -1;
}

static PyObject *write_row(PyObject *text, PyObject *receiver, PyObject *keys, PyObject *file, PyObject *line,
                           PyObject *column, PyObject *field, PyObject *ts, PyObject *version, PyObject **type);

/* Where the one candidate of a line that is its own frame starts, running to the line's end (0-based), or -1: not
 * sure (frames_of and candidates decide). Sure: the line does not start with '{', '[' or '"' and holds nothing
 * JSON-shaped (frames_of gives the line itself), the first RW that could start a match starts one
 * (plain_candidate), no backtick, quote or wrapper opens it (candidates runs it to the end), and it holds no
 * undecodable byte. */
static Py_ssize_t plain_frame(const Text *tp) {
    Py_ssize_t lead = 0;
    while (lead < tp->len && Py_UNICODE_ISSPACE(AT(tp, lead))) lead++;
    if (lead < tp->len && (AT(tp, lead) == '{' || AT(tp, lead) == '[' || AT(tp, lead) == '"')) return -1;
    if (json_shaped(tp)) return -1;
    Py_ssize_t start = plain_candidate(tp);
    if (start < 0) return -1;
    if (start > 0) {
        Py_UCS4 opener = AT(tp, start - 1);
        if (opener == '`' || opener == '\'' || opener == '"' || opener == '*' || opener == '_' || opener == '('
                || opener == '[' || opener == '<')
            return -1;
    }
    for (Py_ssize_t i = start; i < tp->len; i++) {
        Py_UCS4 c = AT(tp, i);
        if (c >= 0xDC80 && c <= 0xDCFF) return -1;
    }
    return start;
}

/* 1: text is a plain line with one candidate the steps above are sure of, which starts at *start, its time *ts (a
 * new reference: a time in UTC, or None); 0: not sure; -1: an error. datetime_ready() called. */
static int plain_line(PyObject *text, Py_ssize_t *start_at, PyObject **ts_at) {
    Text t;
    if (!read_text(text, &t)) return -1;
    const Text *tp = &t;
    Py_ssize_t start = plain_frame(tp);
    if (start < 0) return 0;
    PyObject *ts = utc_prefix(tp, start, 0);
    if (ts == NULL) return -1;
    if (ts == Py_None) {
        for (Py_ssize_t i = 0; i < start; i++)
            if (is_digit(AT(tp, i))) { Py_DECREF(ts); return 0; }   /* a time another reader may read */
    }
    *start_at = start;
    *ts_at = ts;
    return 1;
}

/* plain_start(text): plain_frame's answer for a line (a str): where its one candidate starts, or -1. */
static PyObject *plain_start(PyObject *module, PyObject *text) {
    if (!line_argument(text)) return NULL;
    Text t;
    if (!read_text(text, &t)) return NULL;
    return PyLong_FromSsize_t(plain_frame(&t));
}

/* The candidate of a plain log line (plain_line), cut from it: 1 with *cand_at its text from *start_at to the
 * line's end and *ts_at its time (new references), 0: not sure, -1: the error set. */
static int line_candidate(PyObject *text, PyObject **cand_at, Py_ssize_t *start_at, PyObject **ts_at) {
    int plain = plain_line(text, start_at, ts_at);
    if (plain <= 0) return plain;
    *cand_at = PyUnicode_Substring(text, *start_at, PyUnicode_GET_LENGTH(text));
    if (*cand_at != NULL) return 1;
    Py_CLEAR(*ts_at);
    return -1;
}

static PyObject *line_row(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "line_row(text, receiver, keys, file, line, version)");
        return NULL;
    }
    if (!line_argument(args[0]) || !datetime_ready()) return NULL;
    Py_ssize_t start = 0;
    PyObject *ts = NULL, *cand = NULL;
    int plain = line_candidate(args[0], &cand, &start, &ts);
    if (plain <= 0) return plain < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *column = PyLong_FromSsize_t(start + 1);
    PyObject *type = NULL, *result = NULL;
    if (column != NULL) {
        PyObject *text = write_row(cand, args[1], args[2], args[3], args[4], column, Py_None, ts, args[5], &type);
        if (text != NULL && text != Py_None) {
            result = PyTuple_Pack(2, type, text);
            Py_DECREF(text);
        } else {
            result = text;
        }
    }
    Py_XDECREF(type);
    Py_XDECREF(column);
    Py_DECREF(cand);
    Py_DECREF(ts);
    return result;
}

/* ---- a scan's records as Arrow columns, written row by row ---------------------------------------------------
 *
 * Columns(): the buffers of a batch of records with rogerwilco.io.records.arrow_schema("struct"), filled a row at a
 * time in input order: line(text, receiver, file, line) and candidate(text, receiver, file, line, column, field,
 * ts) write a message the scanner is sure of (as line_row and row: None when not sure, nothing written), record(
 * cells, json, ts) any other record, as Python gives its cells. buffers() gives them to pyarrow's from_buffers:
 * per text column its validity bitmap, int32 offsets and UTF-8 data (a lone surrogate as the six characters of
 * its escape, \ud800 for U+D800, as the Python path's backslashreplace writes it), the int64 line and column, ts
 * as int64 microseconds since the epoch in UTC with its validity, unvalidated as a bitmap, and the json struct's
 * validity. No Record, Message, dict or Python list a row.
 *
 * Hostile input: every buffer grows through out_room, which checks the room before each write; an offset past
 * INT32_MAX (more than 2 GiB of text in one column of one batch) is an OverflowError, not a wrapped offset. */

enum { C_RECORD, C_FILE, C_FIELD, C_TEXT, C_TYPE, C_ID, C_FROM, C_TO, C_RE, C_ITEM, C_WHY, C_REASON, C_TOKEN,
       C_MESSAGE, C_JSON, TEXT_COLUMNS = C_JSON + FORM_FIELDS };
#define RECORD_CELLS 17   /* record(cells): record file line column field text type id from to re item why reason
                             token message unvalidated */

typedef struct {
    Out offsets, data, valid;   /* valid: one byte a row, packed into a bitmap by buffers() */
    Py_ssize_t nulls;
} TextColumn;

typedef struct {
    PyObject_HEAD
    Py_ssize_t rows;
    TextColumn text[TEXT_COLUMNS];
    Out line, column, ts, ts_valid, unvalidated, json_valid;
    Py_ssize_t ts_nulls, json_nulls;
} Columns;

static void columns_dealloc(Columns *self) {
    for (int i = 0; i < TEXT_COLUMNS; i++) {
        PyMem_Free(self->text[i].offsets.data);
        PyMem_Free(self->text[i].data.data);
        PyMem_Free(self->text[i].valid.data);
    }
    Out *outs[] = {&self->line, &self->column, &self->ts, &self->ts_valid, &self->unvalidated, &self->json_valid};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) PyMem_Free(outs[i]->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int put_int32(Out *out, int32_t v) { return out_ascii(out, (const char *)&v, 4); }
static int put_int64(Out *out, int64_t v) { return out_ascii(out, (const char *)&v, 8); }
static int put_flag(Out *out, int v) { char b = (char)(v != 0); return out_ascii(out, &b, 1); }

static PyObject *columns_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != NULL && PyDict_GET_SIZE(kwds) != 0)) {
        PyErr_SetString(PyExc_TypeError, "Columns() takes no arguments");
        return NULL;
    }
    Columns *self = (Columns *)type->tp_alloc(type, 0);   /* zeroed: every buffer empty */
    if (self == NULL) return NULL;
    for (int i = 0; i < TEXT_COLUMNS; i++)
        if (put_int32(&self->text[i].offsets, 0) < 0) { Py_DECREF(self); return NULL; }
    return (PyObject *)self;
}

/* A str's UTF-8, a lone surrogate as its escape (\ud800): 0, or -1 with the error set. */
static int put_utf8(Out *out, PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) return out_ascii(out, (const char *)PyUnicode_DATA(s), n);
    if (n > (PY_SSIZE_T_MAX / 2) / 6) { PyErr_NoMemory(); return -1; }
    if (out_room(out, 6 * n) < 0) return -1;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    char *p = out->data + out->len;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = read_char(kind, data, i);
        if (c < 0x80) {
            *p++ = (char)c;
        } else if (c < 0x800) {
            *p++ = (char)(0xC0 | (c >> 6));
            *p++ = (char)(0x80 | (c & 0x3F));
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            put_unit(p, c); p += 6;
        } else if (c < 0x10000) {
            *p++ = (char)(0xE0 | (c >> 12));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (char)(0x80 | (c & 0x3F));
        } else {
            *p++ = (char)(0xF0 | (c >> 18));
            *p++ = (char)(0x80 | ((c >> 12) & 0x3F));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3F));
            *p++ = (char)(0x80 | (c & 0x3F));
        }
    }
    out->len = p - out->data;
    return 0;
}

/* The end of a text column's row: its offset, checked to fit int32. */
static int text_end(TextColumn *column) {
    if (column->data.len > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "more than 2 GiB of text in one column of a batch");
        return -1;
    }
    return put_int32(&column->offsets, (int32_t)column->data.len);
}

/* One text cell: a str, or None (null). */
static int text_cell(TextColumn *column, PyObject *value) {
    if (value == Py_None) {
        column->nulls++;
        return put_flag(&column->valid, 0) < 0 ? -1 : text_end(column);
    }
    if (!PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "a record's text cell is str or None, not %s", Py_TYPE(value)->tp_name);
        return -1;
    }
    if (put_flag(&column->valid, 1) < 0 || put_utf8(&column->data, value) < 0) return -1;
    return text_end(column);
}

/* Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* A time in UTC (a datetime whose tzinfo is UTC) as microseconds since the epoch: 1, 0: not sure (another zone). */
static int utc_micros(PyObject *ts, int64_t *micros) {
    if (!PyDateTime_Check(ts) || PyDateTime_DATE_GET_TZINFO(ts) != PyDateTime_TimeZone_UTC) return 0;
    int64_t days = days_from_civil(PyDateTime_GET_YEAR(ts), PyDateTime_GET_MONTH(ts), PyDateTime_GET_DAY(ts));
    int64_t seconds = days * 86400 + PyDateTime_DATE_GET_HOUR(ts) * 3600 + PyDateTime_DATE_GET_MINUTE(ts) * 60
                      + PyDateTime_DATE_GET_SECOND(ts);
    *micros = seconds * 1000000 + PyDateTime_DATE_GET_MICROSECOND(ts);
    return 1;
}

/* ts: None, or microseconds (an int, or *micros where has_micros). */
static int ts_cell(Columns *self, int present, int64_t micros) {
    if (!present) {
        self->ts_nulls++;
        return put_flag(&self->ts_valid, 0) < 0 || put_int64(&self->ts, 0) < 0 ? -1 : 0;
    }
    return put_flag(&self->ts_valid, 1) < 0 || put_int64(&self->ts, micros) < 0 ? -1 : 0;
}

/* A message row from form_parts' tuple: 1 written, 0: not sure (nothing written), -1. */
static int columns_message(Columns *self, PyObject *parts, PyObject *file, PyObject *text, Py_ssize_t line,
                           Py_ssize_t column, PyObject *field, PyObject *ts) {
    int64_t micros = 0;
    if (ts != Py_None && !utc_micros(ts, &micros)) return 0;
    Out slots = {NULL, 0, 0};
    int wide = 0;
    int done = out_json(&slots, PyTuple_GET_ITEM(parts, 6), 1, &ARROW_STYLE, &wide);
    if (done <= 0) { PyMem_Free(slots.data); return done; }
    PyObject *const *p = &PyTuple_GET_ITEM(parts, 0);
    /* type id re from to item slots tail, and the record's columns */
    PyObject *cells[C_JSON] = {record_message, file, field, text, p[0], p[1], p[3], p[4], p[2], p[5], Py_None,
                               Py_None, Py_None, Py_None};
    PyObject *json[FORM_FIELDS] = {version, p[0], p[1], p[2], p[3], p[4], p[5], NULL, p[7]};
    int failed = 0;
    for (int i = 0; !failed && i < C_JSON; i++) failed = text_cell(&self->text[i], cells[i]) < 0;
    for (int i = 0; !failed && i < FORM_FIELDS; i++) {
        TextColumn *c = &self->text[C_JSON + i];
        if (json[i] != NULL) {
            failed = text_cell(c, json[i]) < 0;
        } else {   /* the slots' JSON text: UTF-8 already */
            failed = put_flag(&c->valid, 1) < 0 || out_ascii(&c->data, slots.data, slots.len) < 0 || text_end(c) < 0;
        }
    }
    PyMem_Free(slots.data);
    if (failed || put_int64(&self->line, line) < 0 || put_int64(&self->column, column) < 0
            || ts_cell(self, ts != Py_None, micros) < 0 || put_flag(&self->unvalidated, 0) < 0
            || put_flag(&self->json_valid, 1) < 0)
        return -1;
    self->rows++;
    return 1;
}

static int64_t as_int64(PyObject *value, int *ok) {
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "an int is expected, not %s", Py_TYPE(value)->tp_name);
        *ok = 0;
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    *ok = !(v == -1 && PyErr_Occurred());
    return v;
}

/* line(text, receiver, file, line): the type of the message written from a plain log line, or None: not sure. */
static PyObject *columns_line(Columns *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyUnicode_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "line(text, receiver, file, line)");
        return NULL;
    }
    if (!line_argument(args[0]) || !datetime_ready()) return NULL;
    int ok;
    int64_t number = as_int64(args[3], &ok);
    if (!ok) return NULL;
    Py_ssize_t start = 0;
    PyObject *ts = NULL, *cand = NULL;
    int plain = line_candidate(args[0], &cand, &start, &ts);
    if (plain <= 0) return plain < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *result = NULL;
    PyObject *parts = scan_line(cand, core_plans, args[1], Py_None, Py_None, 0, FORM_PARTS, NULL, NULL);
    if (parts != NULL && parts != Py_None) {
        int done = columns_message(self, parts, args[2], cand, (Py_ssize_t)number, start + 1, Py_None, ts);
        result = done < 0 ? NULL : Py_NewRef(done ? PyTuple_GET_ITEM(parts, 0) : Py_None);
    } else {
        result = parts == NULL ? NULL : Py_NewRef(Py_None);
    }
    Py_XDECREF(parts);
    Py_XDECREF(cand);
    Py_DECREF(ts);
    return result;
}

/* candidate(text, receiver, file, line, column, field, ts): the type of the message written from a candidate, or
 * None: not sure. */
static PyObject *columns_candidate(Columns *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7 || !PyUnicode_Check(args[2]) || (args[5] != Py_None && !PyUnicode_Check(args[5]))) {
        PyErr_SetString(PyExc_TypeError, "candidate(text, receiver, file, line, column, field, ts)");
        return NULL;
    }
    if (!line_argument(args[0]) || !datetime_ready()) return NULL;
    int ok_line, ok_column;
    int64_t number = as_int64(args[3], &ok_line);
    if (!ok_line) return NULL;
    int64_t column = as_int64(args[4], &ok_column);
    if (!ok_column) return NULL;
    PyObject *parts = scan_line(args[0], core_plans, args[1], Py_None, Py_None, 0, FORM_PARTS, NULL, NULL);
    if (parts == NULL || parts == Py_None) return parts;
    int done = columns_message(self, parts, args[2], args[0], (Py_ssize_t)number, (Py_ssize_t)column, args[5],
                               args[6]);
    PyObject *result = done < 0 ? NULL : Py_NewRef(done ? PyTuple_GET_ITEM(parts, 0) : Py_None);
    Py_DECREF(parts);
    return result;
}

/* record(cells, json, ts): any record, its 17 cells (record file line column field text type id from to re item
 * why reason token message unvalidated) as Python gives them, json None or its struct's 9 texts (v type id re
 * from to item slots tail; the slots already JSON text), ts None or microseconds since the epoch in UTC. */
static PyObject *columns_record(Columns *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) != RECORD_CELLS
            || (args[1] != Py_None && (!PyTuple_CheckExact(args[1]) || PyTuple_GET_SIZE(args[1]) != FORM_FIELDS))
            || (args[2] != Py_None && !PyLong_Check(args[2]))) {
        PyErr_SetString(PyExc_TypeError, "record(cells: 17-tuple, json: 9-tuple or None, ts: int or None)");
        return NULL;
    }
    PyObject *const *cells = &PyTuple_GET_ITEM(args[0], 0);
    int ok_line, ok_column, ok_ts = 1;
    int64_t line = as_int64(cells[2], &ok_line);
    if (!ok_line) return NULL;
    int64_t column = as_int64(cells[3], &ok_column);
    if (!ok_column) return NULL;
    int64_t micros = args[2] == Py_None ? 0 : as_int64(args[2], &ok_ts);
    if (!ok_ts) return NULL;
    int unvalidated = PyObject_IsTrue(cells[16]);
    if (unvalidated < 0) return NULL;
    /* the text cells' order among cells: record file field text type id from to re item why reason token message */
    static const int at[C_JSON] = {0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int i = 0; i < C_JSON; i++)
        if (text_cell(&self->text[i], cells[at[i]]) < 0) return NULL;
    for (int i = 0; i < FORM_FIELDS; i++)
        if (text_cell(&self->text[C_JSON + i], args[1] == Py_None ? Py_None : PyTuple_GET_ITEM(args[1], i)) < 0)
            return NULL;
    if (args[1] == Py_None) self->json_nulls++;
    if (put_int64(&self->line, line) < 0 || put_int64(&self->column, column) < 0
            || ts_cell(self, args[2] != Py_None, micros) < 0 || put_flag(&self->unvalidated, unvalidated) < 0
            || put_flag(&self->json_valid, args[1] != Py_None) < 0)
        return NULL;
    self->rows++;
    Py_RETURN_NONE;
}

/* A bitmap of one byte a row (Arrow's validity: bit i of byte i / 8, least significant first), as bytes. */
static PyObject *bitmap(const Out *flags) {
    Py_ssize_t n = flags->len;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (n + 7) / 8);
    if (out == NULL) return NULL;
    unsigned char *bits = (unsigned char *)PyBytes_AS_STRING(out);
    memset(bits, 0, (size_t)((n + 7) / 8));
    for (Py_ssize_t i = 0; i < n; i++)
        if (flags->data[i]) bits[i >> 3] |= (unsigned char)(1u << (i & 7));
    return out;
}

static PyObject *as_bytes(const Out *out) {
    return PyBytes_FromStringAndSize(out->data == NULL ? "" : out->data, out->len);
}

/* buffers(): (rows, [(validity, offsets, data, nulls) of each text column: record file field text type id from
 * to re item why reason token message, then the json struct's v type id re from to item slots tail], line,
 * column, (ts validity, ts, nulls), unvalidated bitmap, (json validity, nulls)); a validity is None where no
 * row is null. */
static PyObject *columns_buffers(Columns *self, PyObject *unused) {
    PyObject *texts = PyList_New(TEXT_COLUMNS);
    if (texts == NULL) return NULL;
    for (int i = 0; i < TEXT_COLUMNS; i++) {
        TextColumn *c = &self->text[i];
        PyObject *item = Py_BuildValue("(NNNn)", c->nulls ? bitmap(&c->valid) : Py_NewRef(Py_None),
                                       as_bytes(&c->offsets), as_bytes(&c->data), c->nulls);
        if (item == NULL) { Py_DECREF(texts); return NULL; }
        PyList_SET_ITEM(texts, i, item);
    }
    return Py_BuildValue("(nNNN(NNn)N(Nn))", self->rows, texts, as_bytes(&self->line), as_bytes(&self->column),
                         self->ts_nulls ? bitmap(&self->ts_valid) : Py_NewRef(Py_None), as_bytes(&self->ts),
                         self->ts_nulls, bitmap(&self->unvalidated),
                         self->json_nulls ? bitmap(&self->json_valid) : Py_NewRef(Py_None), self->json_nulls);
}

static PyObject *columns_rows(Columns *self, void *unused) { return PyLong_FromSsize_t(self->rows); }

static PyMethodDef columns_methods[] = {
    {"line", (PyCFunction)(void (*)(void))columns_line, METH_FASTCALL,
     "line(text, receiver, file, line): the type of the message record written from a plain log line holding one "
     "candidate the scanner is sure of (as line_row), or None: not sure, nothing written."},
    {"candidate", (PyCFunction)(void (*)(void))columns_candidate, METH_FASTCALL,
     "candidate(text, receiver, file, line, column, field, ts): the type of the message record written from a "
     "candidate the scanner is sure of, ts a time in UTC or None; or None: not sure, nothing written."},
    {"record", (PyCFunction)(void (*)(void))columns_record, METH_FASTCALL,
     "record(cells, json, ts): any record written from its 17 cells, its json struct's 9 texts or None, and ts "
     "as microseconds since the epoch in UTC or None."},
    {"buffers", (PyCFunction)columns_buffers, METH_NOARGS, "buffers(): the columns' buffers, for from_buffers."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef columns_getset[] = {
    {"rows", (getter)columns_rows, NULL, "the rows written", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ColumnsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rogerwilco.core._scan.Columns",
    .tp_basicsize = sizeof(Columns),
    .tp_dealloc = (destructor)columns_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A batch of a scan's records as Arrow buffers, written row by row.",
    .tp_new = columns_new,
    .tp_methods = columns_methods,
    .tp_getset = columns_getset,
};

/* ---- the string values of a JSON text, for scan's frames ---------------------------------------------------
 *
 * strings(text, at): (pointer, raw body, column) of every string value (not a key) of the JSON text text[at:]
 * whose raw body holds "RW" or "\u" (a version token, or an escape that could spell one), in the text's order:
 * what scan's frames take from a JSON line. The pointer is RFC 6901's, "/" and each key ("~" written "~0", "/"
 * "~1") or index from the top; the column counts code points from 1, at the body's first character. The text
 * is one json.loads accepted (a caller's promise): strings, punctuation, and the scalars between them. None,
 * not sure: a key written with an escape (its pointer needs the decoded key), nesting past STRINGS_DEPTH, or a
 * text that does not read as JSON after all (a string left open, a close with nothing open).
 *
 * Hostile input: every index stays below the text's length, the levels stay below STRINGS_DEPTH. */
#define STRINGS_DEPTH 512

typedef struct {
    PyObject *prefix;     /* the container's own pointer, once a value inside it needed it (a new reference) */
    PyObject *key;        /* an object's current key (a new reference), or NULL */
    Py_ssize_t index;     /* an array's current index */
    char object;          /* an object, not an array */
    char expecting_key;   /* an object's next string is a key */
} Level;

static PyObject *str_tilde, *str_tilde0, *str_slash, *str_tilde1;

/* A key or index as a pointer's step: "/" and the key, escaped, or the index; a new reference. */
static PyObject *pointer_step(const Level *level) {
    PyObject *step;
    if (level->object) {
        if (level->key == NULL) return PyUnicode_FromString("/");   /* not reached on JSON text */
        step = level->key;
        Py_INCREF(step);
        if (PyUnicode_FindChar(step, '~', 0, PyUnicode_GET_LENGTH(step), 1) >= 0)
            Py_SETREF(step, PyUnicode_Replace(step, str_tilde, str_tilde0, -1));
        if (step != NULL && PyUnicode_FindChar(step, '/', 0, PyUnicode_GET_LENGTH(step), 1) >= 0)
            Py_SETREF(step, PyUnicode_Replace(step, str_slash, str_tilde1, -1));
    } else {
        step = PyUnicode_FromFormat("%zd", level->index);
    }
    if (step == NULL) return NULL;
    PyObject *joined = PyUnicode_Concat(str_slash, step);
    Py_DECREF(step);
    return joined;
}

/* The pointer of the container at levels[d] (a borrowed reference, kept in the level until it closes), or NULL:
 * its parent's pointer and the parent's step to it. A key or index changes only at its own level, after every level
 * below it closed, so a pointer kept in a level stays right while the level is open; each is made once, so a
 * value's pointer costs one copy of it however deep it lies. */
static PyObject *container_pointer(Level *levels, int d) {
    if (levels[d].prefix != NULL) return levels[d].prefix;
    if (d == 0) {
        levels[d].prefix = PyUnicode_New(0, 127);
        return levels[d].prefix;
    }
    PyObject *parent = container_pointer(levels, d - 1);
    PyObject *step = parent == NULL ? NULL : pointer_step(&levels[d - 1]);
    if (step == NULL) return NULL;
    levels[d].prefix = PyUnicode_Concat(parent, step);
    Py_DECREF(step);
    return levels[d].prefix;
}

/* The pointer of a value inside levels[depth - 1] ("" outside every container, as the tokens read it). */
static PyObject *pointer_of(Level *levels, int depth) {
    if (depth == 0) return PyUnicode_New(0, 127);
    PyObject *container = container_pointer(levels, depth - 1);
    PyObject *step = container == NULL ? NULL : pointer_step(&levels[depth - 1]);
    if (step == NULL) return NULL;
    PyObject *pointer = PyUnicode_Concat(container, step);
    Py_DECREF(step);
    return pointer;
}

/* Whether text[s:e] holds "RW" or "\u" (as substrings of the raw body, escapes and all). */
static int may_frame(const Text *tp, Py_ssize_t s, Py_ssize_t e) {
    for (Py_ssize_t k = s; k + 1 < e; k++) {
        Py_UCS4 c = AT(tp, k), d = AT(tp, k + 1);
        if ((c == 'R' && d == 'W') || (c == '\\' && d == 'u')) return 1;
    }
    return 0;
}

static PyObject *json_strings(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "strings(text, at)");
        return NULL;
    }
    PyObject *text = args[0];
    Text t;
    if (!read_text(text, &t)) return NULL;
    const Text *tp = &t;
    Py_ssize_t n = t.len, i = PyLong_AsSsize_t(args[1]);
    if (i == -1 && PyErr_Occurred()) return NULL;
    if (i < 0 || i > n) Py_RETURN_NONE;
    Level *levels = PyMem_Calloc(STRINGS_DEPTH, sizeof(Level));
    if (levels == NULL) return PyErr_NoMemory();
    int depth = 0, sure = 1;
    PyObject *out = PyList_New(0);
    while (out != NULL && sure && i < n) {
        Py_UCS4 c = AT(tp, i);
        if (c == '"') {
            Py_ssize_t s = i + 1, j = s;
            int escaped = 0;
            while (j < n) {
                Py_UCS4 d = AT(tp, j);
                if (d == '"') break;
                if (d == '\\') { escaped = 1; j += 2; continue; }
                j++;
            }
            if (j >= n) { sure = 0; break; }   /* a string left open */
            i = j + 1;
            Level *top = depth > 0 ? &levels[depth - 1] : NULL;
            if (top != NULL && top->object && top->expecting_key) {
                if (escaped) { sure = 0; break; }
                PyObject *key = substring(text, s, j);
                if (key == NULL) { Py_CLEAR(out); break; }
                Py_XSETREF(top->key, key);
                top->expecting_key = 0;
                continue;
            }
            if (!may_frame(tp, s, j)) continue;
            PyObject *pointer = pointer_of(levels, depth), *body = substring(text, s, j);
            PyObject *column = PyLong_FromSsize_t(s + 1);
            PyObject *found = pointer && body && column ? PyTuple_Pack(3, pointer, body, column) : NULL;
            Py_XDECREF(pointer); Py_XDECREF(body); Py_XDECREF(column);
            if (found == NULL || PyList_Append(out, found) < 0) Py_CLEAR(out);
            Py_XDECREF(found);
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth >= STRINGS_DEPTH) { sure = 0; break; }
            Level *level = &levels[depth++];
            level->prefix = NULL;
            level->key = NULL;
            level->index = 0;
            level->object = c == '{';
            level->expecting_key = c == '{';
        } else if (c == '}' || c == ']') {
            if (depth == 0) { sure = 0; break; }   /* a close with nothing open */
            depth--;
            Py_CLEAR(levels[depth].key);
            Py_CLEAR(levels[depth].prefix);
        } else if (c == ',' && depth > 0) {
            Level *top = &levels[depth - 1];
            if (top->object) top->expecting_key = 1;
            else top->index++;
        }
        i++;
    }
    while (depth > 0) {  /* (Py_CLEAR reads its argument more than once) */
        depth--;
        Py_CLEAR(levels[depth].key);
        Py_CLEAR(levels[depth].prefix);
    }
    PyMem_Free(levels);
    if (out != NULL && !sure) { Py_DECREF(out); Py_RETURN_NONE; }
    return out;
}

/* ---- lint's accept path: rogerwilco.checks._plain's plain steps, step for step ---------------------------
 *
 * PlainSteps(named, last, items, open, room, held, kept, not_plain_ho, readback, blockers).take takes one
 * Message: True where it takes a plain step, False where it does not (the caller stops and reads the
 * stream the full way). It reads and writes the same dicts, set and thread lists as PlainThreads.take, in the
 * same layout (the thread's fields, the states and the kinds of what an id names, as _plain.py numbers them),
 * so PlainThreads.unfinished reads what either wrote; readback(ho, rb) is the Python function a readback the
 * steps do not read at once goes to, blockers readback.VERBATIM_BLOCKERS (verbatim_types is read here). tests/test_lint_plain.py holds the two to the same state, message for
 * message. A Message of another type than the one configure() gave is not plain here (the full pass reads it). */

enum { T_FROM, T_TO, T_ITEM, T_READBACK, T_CLOSE, T_LIVE, T_LIVE_ID, T_WAITS, T_MESSAGES, T_DATED, T_ECHO, T_VERDICT,
       T_FIELDS };
enum { RB_OFFERED, RB_VOID, RB_WILCO, RB_READ_BACK };
enum { CL_OPEN, CL_DONE, CL_CLOSED, CL_CANCELLED };
enum { N_ISSUE, N_RESEND, N_RB_VOID, N_QUESTION, N_CANCEL, N_RB_WAIT };
enum { F_TYPE, F_ID, F_RE, F_FROM, F_TO, F_ITEM, F_SLOTS, F_TAIL };

typedef struct {
    PyObject_HEAD
    PyObject *named, *last, *items, *open;   /* dict, dict, set, dict: PlainThreads' own */
    PyObject *not_plain_ho;                   /* the slots that take an HO off the plain steps (a tuple) */
    PyObject *readback;                       /* Python callable: the tiers' verdict */
    PyObject *blockers;                       /* readback.VERBATIM_BLOCKERS, as a tuple */
    Py_ssize_t room, held, kept;
} PlainSteps;

static PyObject *small[8];                    /* 0..7, the states and kinds as ints */
static PyObject *p_HO, *p_RB, *p_DN, *p_UN, *p_AN, *p_CX, *p_AQ, *p_FL;
static PyObject *p_out, *p_why, *p_val, *p_ask, *p_due, *p_exp, *p_NOOP, *p_DUP, *p_UNK, *p_VER, *p_Y, *p_UNDO;
static PyObject *p_rb, *p_echo, *p_acc, *p_plan;

/* A Message's field, borrowed: the slot's own reference (the message holds it while the step runs). */
static PyObject *field(PyObject *m, int i) {
    PyObject *descr = setters[i];
    PyObject *value = Py_TYPE(descr)->tp_descr_get(descr, m, (PyObject *)message_type);
    if (value != NULL) Py_DECREF(value);   /* the message keeps it alive */
    return value;
}

static int eq(PyObject *a, PyObject *b) {   /* 1, 0, or -1 with an error */
    if (a == b) return 1;
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b)) {   /* (the envelope's fields: str, compared at once) */
        Py_ssize_t n = PyUnicode_GET_LENGTH(a);
        int kind = PyUnicode_KIND(a);
        return n == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b)
               && memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
    }
    if (a == Py_None || b == Py_None) return 0;
    return PyObject_RichCompareBool(a, b, Py_EQ);
}

static long state(PyObject *t, int i) { return PyLong_AsLong(PyList_GET_ITEM(t, i)); }

static void set_item(PyObject *t, int i, PyObject *value) {   /* value borrowed */
    Py_INCREF(value);
    PyObject *old = PyList_GET_ITEM(t, i);
    PyList_SET_ITEM(t, i, value);
    Py_DECREF(old);
}

static int set_state(PyObject *t, int i, long v) {
    if (v >= 0 && v < 8) { set_item(t, i, small[v]); return 0; }
    PyObject *n = PyLong_FromLong(v);
    if (n == NULL) return -1;
    PyObject *old = PyList_GET_ITEM(t, i);
    PyList_SET_ITEM(t, i, n);
    Py_DECREF(old);
    return 0;
}

/* del named[ident]: what it named is answered (or read no more) */
static int unname(PlainSteps *self, PyObject *ident) { return PyDict_DelItem(self->named, ident); }

/* named[ident] = (kind, t) */
static int name_as(PlainSteps *self, PyObject *ident, int kind, PyObject *t) {
    PyObject *entry = PyTuple_Pack(2, small[kind], t);
    if (entry == NULL) return -1;
    int done = PyDict_SetItem(self->named, ident, entry);
    Py_DECREF(entry);
    return done;
}

/* slots.get(key) as a new reference (None where absent), or NULL with an error. */
static PyObject *slot_get(PyObject *slots, PyObject *key) {
    PyObject *value = PyObject_GetItem(slots, key);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return value;
}

/* Whether slots.get(key) == want (a str): 1, 0, -1 with an error. */
static int slot_is(PyObject *slots, PyObject *key, PyObject *want) {
    PyObject *value = slot_get(slots, key);
    if (value == NULL) return -1;
    int same = value == Py_None ? 0 : eq(value, want);
    Py_DECREF(value);
    return same;
}

/* _keep: 1 (room left), 0 (none: not plain), -1 error */
static int keep(PlainSteps *self, PyObject *t, PyObject *m) {
    PyObject *kept = PyList_GET_ITEM(t, T_MESSAGES);
    if (m != NULL) {
        if (PyList_Append(kept, m) < 0) return -1;
        self->room -= self->kept;
    }
    if (state(t, T_WAITS) == 0 && state(t, T_CLOSE) != CL_OPEN && state(t, T_READBACK) != RB_READ_BACK) {
        self->room += self->kept * PyList_GET_SIZE(kept);
        PyObject *key = field(PyList_GET_ITEM(kept, 0), F_ID);   /* (its first message's id: kept alive by it) */
        if (key == NULL || PyDict_DelItem(self->open, key) < 0) return -1;
        PyObject *live = PyList_GET_ITEM(t, T_LIVE_ID);   /* its live issue: nothing reads a finished thread again */
        if (live != Py_None && PyDict_DelItem(self->named, live) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError)) return -1;
            PyErr_Clear();
        }
        set_item(t, T_MESSAGES, Py_None);
    }
    return self->room >= 0;
}

static int open_thread(PlainSteps *self, PyObject *t, PyObject *first) {
    PyObject *key = field(first, F_ID);
    return key == NULL ? -1 : PyDict_SetItem(self->open, key, t);
}

/* 1 where the mapping holds any of the keys, 0 where none, -1 with an error */
static int holds_any(PyObject *slots, PyObject *keys) {   /* keys: a tuple */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++) {
        int has = PySequence_Contains(slots, PyTuple_GET_ITEM(keys, i));
        if (has != 0) return has;
    }
    return 0;
}

/* rogerwilco.checks.readback.verbatim_types(ho), read from its slots: a new reference (a tuple, or None), or NULL
 * with an error. */
static PyObject *verbatim_types(PlainSteps *self, PyObject *slots) {
    int blocked = holds_any(slots, self->blockers);
    if (blocked != 0) return blocked < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *keys = PyObject_GetIter(slots);
    if (keys == NULL) return NULL;
    PyObject *typed = PyList_New(0), *key;
    if (typed == NULL) { Py_DECREF(keys); return NULL; }
    int plain = 1;
    while (plain && (key = PyIter_Next(keys)) != NULL) {
        PyObject *value = PyObject_GetItem(slots, key);
        if (value == NULL) { Py_DECREF(key); plain = -1; break; }
        PyTypeObject *kind = Py_TYPE(value);
        if (kind == &PyLong_Type || kind == &PyBool_Type) {
            PyObject *pair = PyTuple_Pack(2, key, (PyObject *)kind);
            if (pair == NULL || PyList_Append(typed, pair) < 0) plain = -1;
            Py_XDECREF(pair);
        } else if (kind != &PyUnicode_Type) {
            plain = 0;
        }
        Py_DECREF(value);
        Py_DECREF(key);
    }
    Py_DECREF(keys);
    if (plain < 0 || PyErr_Occurred()) { Py_DECREF(typed); return NULL; }
    if (!plain) { Py_DECREF(typed); return Py_NewRef(Py_None); }
    PyObject *out = PyList_AsTuple(typed);
    Py_DECREF(typed);
    return out;
}

/* The HO's rb= levels: 1 where it has none or asks only echo, acc and plan (*verdict: acc or plan asked), 0
 * where it asks any other (not plain), -1 with an error. */
static int levels_of(PyObject *slots, int *verdict) {
    if (verdict != NULL) *verdict = 0;
    PyObject *rb = slot_get(slots, p_rb);
    if (rb == NULL) return -1;
    int plain = 1;
    if (rb != Py_None) {
        if (!PyTuple_CheckExact(rb)) plain = 0;
        for (Py_ssize_t i = 0; plain == 1 && i < PyTuple_GET_SIZE(rb); i++) {
            PyObject *token = PyTuple_GET_ITEM(rb, i);
            int acc = eq(token, p_acc), plan = acc == 0 ? eq(token, p_plan) : 0;
            if (acc < 0 || plan < 0) { plain = -1; break; }
            if (acc || plan) { if (verdict != NULL) *verdict = 1; continue; }
            plain = eq(token, p_echo);
        }
    }
    Py_DECREF(rb);
    return plain;
}

/* _plain_ho: 1, 0, -1 */
static int plain_ho(PlainSteps *self, PyObject *m) {
    PyObject *item = field(m, F_ITEM), *slots = field(m, F_SLOTS);
    if (item == NULL || slots == NULL) return -1;
    if (!PyUnicode_CheckExact(item)) return 0;
    int same = eq(field(m, F_FROM), field(m, F_TO));
    if (same != 0) return same < 0 ? -1 : 0;
    int blocked = holds_any(slots, self->not_plain_ho);
    if (blocked != 0) return blocked < 0 ? -1 : 0;
    int levels = levels_of(slots, NULL);
    if (levels <= 0) return levels;
    int undo = slot_is(slots, p_ask, p_UNDO);
    return undo < 0 ? -1 : !undo;
}

/* _issue: m is the live issue of t now. 0, or -1 with an error. */
static int issue(PlainSteps *self, PyObject *t, PyObject *m) {
    PyObject *slots = field(m, F_SLOTS), *ident = field(m, F_ID);
    if (slots == NULL || ident == NULL) return -1;
    set_item(t, T_LIVE, m);
    set_item(t, T_LIVE_ID, ident);
    int due = PySequence_Contains(slots, p_due);
    int exp = due == 0 ? PySequence_Contains(slots, p_exp) : 0;
    if (due < 0 || exp < 0) return -1;
    if (due || exp) set_item(t, T_DATED, Py_True);
    PyObject *echo = verbatim_types(self, slots);
    if (echo == NULL) return -1;
    set_item(t, T_ECHO, echo);
    Py_DECREF(echo);
    int verdict;
    if (levels_of(slots, &verdict) < 0) return -1;
    set_item(t, T_VERDICT, verdict ? Py_True : Py_False);
    return 0;
}

/* _echoes: 1, 0, -1 */
static int echoes(PlainSteps *self, PyObject *t, PyObject *rb) {
    PyObject *ho = PyList_GET_ITEM(t, T_LIVE), *typed = PyList_GET_ITEM(t, T_ECHO);
    if (typed != Py_None) {
        int same = eq(field(rb, F_ITEM), field(ho, F_ITEM));
        if (same < 0) return -1;
        PyObject *rb_slots = field(rb, F_SLOTS);
        if (same) same = eq(rb_slots, field(ho, F_SLOTS));
        if (same < 0) return -1;
        if (same) {
            Py_ssize_t n = PyTuple_GET_SIZE(typed);
            for (Py_ssize_t i = 0; same && i < n; i++) {
                PyObject *pair = PyTuple_GET_ITEM(typed, i);
                PyObject *value = PyObject_GetItem(rb_slots, PyTuple_GET_ITEM(pair, 0));
                if (value == NULL) return -1;
                same = (PyObject *)Py_TYPE(value) == PyTuple_GET_ITEM(pair, 1);
                Py_DECREF(value);
            }
            if (same) return 1;
        }
    }
    PyObject *passed = PyObject_CallFunctionObjArgs(self->readback, ho, rb, NULL);
    if (passed == NULL) return -1;
    int yes = PyObject_IsTrue(passed);
    Py_DECREF(passed);
    return yes;
}

static PyObject *new_thread(PyObject *from, PyObject *to, PyObject *item, long close, PyObject *first) {
    PyObject *t = PyList_New(T_FIELDS);
    if (t == NULL) return NULL;
    PyObject *messages = PyList_New(1);
    if (messages == NULL) { Py_DECREF(t); return NULL; }
    Py_INCREF(first); PyList_SET_ITEM(messages, 0, first);
    PyObject *values[T_FIELDS] = {from, to, item, small[RB_OFFERED], small[close], Py_None, Py_None, small[1],
                                  messages, Py_False, Py_None, Py_False};
    for (int i = 0; i < T_FIELDS; i++) {
        if (i != T_MESSAGES) Py_INCREF(values[i]);
        PyList_SET_ITEM(t, i, values[i]);
    }
    return t;
}

static int new_handoff(PlainSteps *self, PyObject *m) {
    int plain = plain_ho(self, m);
    if (plain <= 0) return plain;
    PyObject *item = field(m, F_ITEM);
    int seen = PySet_Contains(self->items, item);
    if (seen != 0) return seen < 0 ? -1 : 0;
    if (PySet_Add(self->items, item) < 0) return -1;
    PyObject *t = new_thread(field(m, F_FROM), field(m, F_TO), item, CL_OPEN, m);
    if (t == NULL) return -1;
    self->room -= self->kept;
    int result = -1;
    if (issue(self, t, m) < 0 || open_thread(self, t, m) < 0 || name_as(self, field(m, F_ID), N_ISSUE, t) < 0) goto done;
    result = keep(self, t, NULL);
done:
    Py_DECREF(t);
    return result;
}

static int carried(PlainSteps *self, PyObject *m, long what, PyObject *t) {
    if (what != N_ISSUE && what != N_RB_VOID) return 0;
    int plain = plain_ho(self, m);
    if (plain <= 0) return plain;
    if (state(t, T_CLOSE) != CL_OPEN) return 0;
    int same = eq(field(m, F_FROM), PyList_GET_ITEM(t, T_FROM));
    if (same > 0) same = eq(field(m, F_TO), PyList_GET_ITEM(t, T_TO));
    if (same > 0) same = eq(field(m, F_ITEM), PyList_GET_ITEM(t, T_ITEM));
    if (same <= 0) return same;
    PyObject *re = field(m, F_RE);
    if (what == N_ISSUE) {
        PyObject *live = PyList_GET_ITEM(t, T_LIVE);
        same = eq(PyList_GET_ITEM(t, T_LIVE_ID), re);
        if (same > 0) same = state(t, T_READBACK) == RB_WILCO;
        if (same > 0) same = eq(field(m, F_SLOTS), field(live, F_SLOTS));
        if (same > 0) same = eq(field(m, F_TAIL), field(live, F_TAIL));
        if (same <= 0) return same;
        if (set_state(t, T_WAITS, state(t, T_WAITS) + 1) < 0) return -1;
        if (name_as(self, field(m, F_ID), N_RESEND, t) < 0) return -1;
        return keep(self, t, m);
    }
    if (what == N_RB_VOID) {
        if (state(t, T_READBACK) != RB_VOID) return 0;
        if (unname(self, re) < 0 || unname(self, PyList_GET_ITEM(t, T_LIVE_ID)) < 0) return -1;
        set_item(t, T_READBACK, small[RB_OFFERED]);
        if (issue(self, t, m) < 0) return -1;
        if (name_as(self, field(m, F_ID), N_ISSUE, t) < 0) return -1;
        return keep(self, t, m);
    }
    return 0;
}

/* _answers: the asked agent's answer to a question; 1, 0, -1 */
static int answers(PlainSteps *self, PyObject *m, PyObject *question) {
    if (PyTuple_GET_SIZE(question) != 4) return 0;
    PyObject *t = PyTuple_GET_ITEM(question, 1);
    int same = eq(field(m, F_FROM), PyTuple_GET_ITEM(question, 3));
    if (same > 0) same = eq(field(m, F_TO), PyTuple_GET_ITEM(question, 2));
    if (same <= 0) return same;
    if (unname(self, field(m, F_RE)) < 0) return -1;
    if (set_state(t, T_WAITS, state(t, T_WAITS) - 1) < 0) return -1;
    return 1;
}

#define FAIL_IF(cond) do { int _c = (cond); if (_c < 0) return -1; if (_c) return 0; } while (0)

/* PlainThreads.take: 1, 0, -1 with an error */
static int plain_step(PlainSteps *self, PyObject *m) {
    PyObject *ident = field(m, F_ID);
    if (ident == NULL || !PyUnicode_CheckExact(ident)) return ident == NULL ? -1 : 0;
    FAIL_IF(PyDict_Contains(self->named, ident));
    self->room -= self->held;
    if (self->room < 0) return 0;
    PyObject *sender = field(m, F_FROM);
    if (sender == NULL || !PyUnicode_CheckExact(sender)) return sender == NULL ? -1 : 0;
    /* <from>-<n>: the text before the last "-" is the sender, n its ASCII digits */
    Py_ssize_t len = PyUnicode_GET_LENGTH(ident);
    Py_ssize_t dash = PyUnicode_FindChar(ident, '-', 0, len, -1);
    if (dash == -2) return -1;
    if (dash < 0 || dash != PyUnicode_GET_LENGTH(sender) || dash + 1 == len) return 0;
    int starts = PyUnicode_Tailmatch(ident, sender, 0, dash, -1);
    if (starts != 1) return starts < 0 ? -1 : 0;
    int kind = PyUnicode_KIND(ident);
    const void *data = PyUnicode_DATA(ident);
    for (Py_ssize_t i = dash + 1; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c < '0' || c > '9') return 0;
    }
    Py_ssize_t ndigits = len - dash - 1;
    PyObject *number;
    if (ndigits <= 18) {   /* (n of at most 18 digits: read here, no str made) */
        long long n = 0;
        for (Py_ssize_t i = dash + 1; i < len; i++) n = n * 10 + (long long)(PyUnicode_READ(kind, data, i) - '0');
        number = PyLong_FromLongLong(n);
    } else {
        PyObject *digits = PyUnicode_Substring(ident, dash + 1, len);
        if (digits == NULL) return -1;
        number = PyLong_FromUnicodeObject(digits, 10);
        Py_DECREF(digits);
    }
    if (number == NULL) return -1;
    PyObject *previous = PyDict_GetItemWithError(self->last, sender);
    if (previous == NULL && PyErr_Occurred()) { Py_DECREF(number); return -1; }
    if (previous != NULL) {
        int back = PyObject_RichCompareBool(number, previous, Py_LE);
        if (back != 0) { Py_DECREF(number); return back < 0 ? -1 : 0; }
    }
    int put = PyDict_SetItem(self->last, sender, number);
    Py_DECREF(number);
    if (put < 0) return -1;

    PyObject *type = field(m, F_TYPE), *re = field(m, F_RE), *to = field(m, F_TO);
    if (type == NULL || re == NULL || to == NULL) return -1;
    if (re == Py_None) {
        if (eq(type, p_HO) == 1) return new_handoff(self, m);
        if (eq(type, p_AQ) == 1 && field(m, F_ITEM) == Py_None) {
            PyObject *q = new_thread(sender, to, Py_None, CL_CLOSED, m);
            if (q == NULL) return -1;
            int result = -1;
            PyObject *entry = PyTuple_Pack(4, small[N_QUESTION], q, sender, to);
            if (entry != NULL && open_thread(self, q, m) == 0 && PyDict_SetItem(self->named, ident, entry) == 0)
                result = keep(self, q, NULL);
            Py_XDECREF(entry);
            Py_DECREF(q);
            return result;
        }
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *target = PyDict_GetItemWithError(self->named, re);
    if (target == NULL) return PyErr_Occurred() ? -1 : 0;
    Py_INCREF(target);   /* (the entry may be replaced while the step runs) */
    long what = PyLong_AsLong(PyTuple_GET_ITEM(target, 0));
    PyObject *t = PyTuple_GET_ITEM(target, 1);
    Py_INCREF(t);
    int result = 0;
    PyObject *slots = field(m, F_SLOTS), *item = field(m, F_ITEM);
    if (slots == NULL || item == NULL) { result = -1; goto done; }
/* NEED(x): x is 1 (go on), 0 (not plain) or -1 (an error); NOT(c): a plain condition that must not hold */
#define NEED(x) do { int _c = (x); if (_c <= 0) { result = _c; goto done; } } while (0)
#define NOT(c) do { if (c) goto done; } while (0)
#define TRY(expr) do { if ((expr) < 0) { result = -1; goto done; } } while (0)
    if (eq(type, p_RB) == 1) {
        NOT(what != N_ISSUE);
        NEED(eq(PyList_GET_ITEM(t, T_LIVE_ID), re));
        NOT(state(t, T_READBACK) != RB_OFFERED || state(t, T_CLOSE) != CL_OPEN);
        NEED(eq(sender, PyList_GET_ITEM(t, T_TO)));
        NEED(eq(to, PyList_GET_ITEM(t, T_FROM)));
        int passed = echoes(self, t, m);
        TRY(passed);
        if (passed) {
            TRY(set_state(t, T_WAITS, state(t, T_WAITS) - 1));
            if (PyList_GET_ITEM(t, T_VERDICT) == Py_True) {
                set_item(t, T_READBACK, small[RB_READ_BACK]);
                TRY(name_as(self, ident, N_RB_WAIT, t));
            } else {
                set_item(t, T_READBACK, small[RB_WILCO]);
            }
        } else {
            set_item(t, T_READBACK, small[RB_VOID]);
            TRY(name_as(self, ident, N_RB_VOID, t));
        }
        result = keep(self, t, m);
    } else if (eq(type, p_DN) == 1) {
        NOT(what != N_ISSUE);
        NEED(eq(PyList_GET_ITEM(t, T_LIVE_ID), re));
        NOT(state(t, T_READBACK) != RB_WILCO || state(t, T_CLOSE) != CL_OPEN);
        NEED(eq(sender, PyList_GET_ITEM(t, T_TO)));
        NEED(eq(to, PyList_GET_ITEM(t, T_FROM)));
        NEED(eq(item, PyList_GET_ITEM(t, T_ITEM)));
        int noop = slot_is(slots, p_out, p_NOOP);
        TRY(noop);
        set_item(t, T_CLOSE, small[noop ? CL_CLOSED : CL_DONE]);
        set_item(t, T_LIVE, Py_None);
        result = keep(self, t, m);
    } else if (eq(type, p_FL) == 1 || (what == N_ISSUE && eq(type, p_UN) == 1)) {
        /* the receiver's close of the live issue: a refusal answers the HO, a failure does not */
        int refusal = eq(type, p_UN) == 1;
        NOT(what != N_ISSUE);
        NEED(eq(PyList_GET_ITEM(t, T_LIVE_ID), re));
        NOT(state(t, T_CLOSE) != CL_OPEN || state(t, T_READBACK) == RB_VOID);
        NEED(eq(sender, PyList_GET_ITEM(t, T_TO)));
        NEED(eq(to, PyList_GET_ITEM(t, T_FROM)));
        if (item != Py_None) NEED(eq(item, PyList_GET_ITEM(t, T_ITEM)));
        if (refusal) {
            PyObject *why = slot_get(slots, p_why);
            if (why == NULL) { result = -1; goto done; }
            int unread = why != Py_None && (eq(why, p_DUP) == 1 || eq(why, p_UNK) == 1 || eq(why, p_VER) == 1);
            Py_DECREF(why);
            if (PyErr_Occurred()) { result = -1; goto done; }
            NOT(unread);
            if (state(t, T_READBACK) == RB_OFFERED) TRY(set_state(t, T_WAITS, state(t, T_WAITS) - 1));
        }
        set_item(t, T_CLOSE, small[CL_CLOSED]);
        set_item(t, T_LIVE, Py_None);
        result = keep(self, t, m);
    } else if (eq(type, p_UN) == 1) {
        if (what == N_RESEND) {
            NOT(state(t, T_CLOSE) != CL_OPEN);
            NEED(eq(sender, PyList_GET_ITEM(t, T_TO)));
            NEED(eq(to, PyList_GET_ITEM(t, T_FROM)));
            NEED(slot_is(slots, p_why, p_DUP));
            TRY(unname(self, re));
            TRY(set_state(t, T_WAITS, state(t, T_WAITS) - 1));
        } else {
            NOT(what != N_QUESTION);
            NEED(answers(self, m, target));
        }
        result = keep(self, t, m);
    } else if (eq(type, p_AN) == 1) {
        if (what == N_QUESTION) {
            NEED(answers(self, m, target));
        } else if (what == N_RB_WAIT) {
            NOT(state(t, T_READBACK) != RB_READ_BACK || state(t, T_CLOSE) != CL_OPEN);
            NEED(slot_is(slots, p_val, p_Y));
            NEED(eq(sender, PyList_GET_ITEM(t, T_FROM)));
            NEED(eq(to, PyList_GET_ITEM(t, T_TO)));
            TRY(unname(self, re));
            set_item(t, T_READBACK, small[RB_WILCO]);
        } else if (what == N_CANCEL) {
            NEED(eq(sender, PyList_GET_ITEM(t, T_TO)));
            NEED(eq(to, PyList_GET_ITEM(t, T_FROM)));
            NEED(slot_is(slots, p_val, p_Y));
            TRY(unname(self, re));
            TRY(set_state(t, T_WAITS, state(t, T_WAITS) - 1));
        } else {
            goto done;
        }
        result = keep(self, t, m);
    } else if (eq(type, p_CX) == 1) {
        NOT(what != N_ISSUE);
        NEED(eq(PyList_GET_ITEM(t, T_LIVE_ID), re));
        NOT(state(t, T_CLOSE) != CL_OPEN || state(t, T_READBACK) == RB_VOID);
        NEED(eq(sender, PyList_GET_ITEM(t, T_FROM)));
        NEED(eq(to, PyList_GET_ITEM(t, T_TO)));
        NEED(eq(item, PyList_GET_ITEM(t, T_ITEM)));
        long waits = state(t, T_WAITS);
        if (state(t, T_READBACK) == RB_OFFERED) waits -= 1;
        set_item(t, T_CLOSE, small[CL_CANCELLED]);
        set_item(t, T_LIVE, Py_None);
        TRY(set_state(t, T_WAITS, waits + 1));
        TRY(name_as(self, ident, N_CANCEL, t));
        result = keep(self, t, m);
    } else if (eq(type, p_AQ) == 1) {
        NOT(what != N_ISSUE);
        NEED(eq(PyList_GET_ITEM(t, T_LIVE_ID), re));
        NOT(state(t, T_CLOSE) != CL_OPEN);
        if (item != Py_None) NEED(eq(item, PyList_GET_ITEM(t, T_ITEM)));
        int forward = eq(sender, PyList_GET_ITEM(t, T_FROM));
        if (forward > 0) forward = eq(to, PyList_GET_ITEM(t, T_TO));
        int backward = forward == 0 ? eq(sender, PyList_GET_ITEM(t, T_TO)) : 0;
        if (backward > 0) backward = eq(to, PyList_GET_ITEM(t, T_FROM));
        if (forward < 0 || backward < 0) { result = -1; goto done; }
        NOT(!forward && !backward);
        TRY(set_state(t, T_WAITS, state(t, T_WAITS) + 1));
        PyObject *entry = PyTuple_Pack(4, small[N_QUESTION], t, sender, to);
        if (entry == NULL) { result = -1; goto done; }
        put = PyDict_SetItem(self->named, ident, entry);
        Py_DECREF(entry);
        TRY(put);
        result = keep(self, t, m);
    } else if (eq(type, p_HO) == 1) {
        result = carried(self, m, what, t);
    }
#undef NEED
#undef NOT
#undef TRY
done:
    if (result >= 0 && PyErr_Occurred()) result = -1;
    Py_DECREF(t);
    Py_DECREF(target);
    return result;
}

static PyObject *plain_steps_take(PlainSteps *self, PyObject *m) {
    if (message_type == NULL || Py_TYPE(m) != message_type) Py_RETURN_FALSE;
    int took = plain_step(self, m);
    if (took < 0) return NULL;
    return PyBool_FromLong(took);
}

static PyObject *plain_steps_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *named, *last, *items, *open, *not_plain_ho, *readback, *blockers;
    Py_ssize_t room, held, kept;
    if (!PyArg_ParseTuple(args, "O!O!O!O!nnnO!OO!", &PyDict_Type, &named, &PyDict_Type, &last, &PySet_Type, &items,
                          &PyDict_Type, &open, &room, &held, &kept, &PyFrozenSet_Type, &not_plain_ho, &readback,
                          &PyFrozenSet_Type, &blockers))
        return NULL;
    PlainSteps *self = (PlainSteps *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->named = Py_NewRef(named); self->last = Py_NewRef(last); self->items = Py_NewRef(items);
    self->open = Py_NewRef(open); self->readback = Py_NewRef(readback);
    self->not_plain_ho = PySequence_Tuple(not_plain_ho);
    self->blockers = PySequence_Tuple(blockers);
    if (self->not_plain_ho == NULL || self->blockers == NULL) { Py_DECREF(self); return NULL; }
    self->room = room; self->held = held; self->kept = kept;
    return (PyObject *)self;
}

static int plain_steps_traverse(PlainSteps *self, visitproc visit, void *arg) {
    Py_VISIT(self->named); Py_VISIT(self->last); Py_VISIT(self->items); Py_VISIT(self->open);
    Py_VISIT(self->not_plain_ho); Py_VISIT(self->readback); Py_VISIT(self->blockers);
    return 0;
}

static int plain_steps_clear(PlainSteps *self) {
    Py_CLEAR(self->named); Py_CLEAR(self->last); Py_CLEAR(self->items); Py_CLEAR(self->open);
    Py_CLEAR(self->not_plain_ho); Py_CLEAR(self->readback); Py_CLEAR(self->blockers);
    return 0;
}

static void plain_steps_dealloc(PlainSteps *self) {
    PyObject_GC_UnTrack(self);
    plain_steps_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *plain_steps_room(PlainSteps *self, void *closure) { return PyLong_FromSsize_t(self->room); }

static PyMethodDef plain_steps_methods[] = {
    {"take", (PyCFunction)plain_steps_take, METH_O, "take(message): whether it takes a plain step (PlainThreads.take)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef plain_steps_getset[] = {
    {"room", (getter)plain_steps_room, NULL, "the memory left, as PlainThreads counts it", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PlainStepsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rogerwilco.core._scan.PlainSteps",
    .tp_basicsize = sizeof(PlainSteps),
    .tp_dealloc = (destructor)plain_steps_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "PlainThreads.take, step for step (lint's accept path).",
    .tp_new = plain_steps_new,
    .tp_methods = plain_steps_methods,
    .tp_traverse = (traverseproc)plain_steps_traverse,
    .tp_clear = (inquiry)plain_steps_clear,
    .tp_getset = plain_steps_getset,
};

static int plain_steps_ready(PyObject *m) {
    for (int i = 0; i < 8; i++) if ((small[i] = PyLong_FromLong(i)) == NULL) return -1;
    PyObject **names[] = {&p_rb, &p_echo, &p_acc, &p_plan, &p_HO, &p_RB, &p_DN, &p_UN, &p_AN, &p_CX, &p_AQ, &p_FL, &p_out, &p_why, &p_val, &p_ask, &p_due,
                          &p_exp, &p_NOOP, &p_DUP, &p_UNK, &p_VER, &p_Y, &p_UNDO};
    static const char *texts[] = {"rb", "echo", "acc", "plan", "HO", "RB", "DN", "UN", "AN", "CX", "AQ", "FL", "out", "why", "val", "ask", "due", "exp",
                                  "NOOP", "DUP", "UNK", "VER", "Y", "UNDO"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) return -1;
    if (PyType_Ready(&PlainStepsType) < 0) return -1;
    Py_INCREF(&PlainStepsType);
    if (PyModule_AddObject(m, "PlainSteps", (PyObject *)&PlainStepsType) < 0) {
        Py_DECREF(&PlainStepsType);
        return -1;
    }
    return 0;
}

static PyMethodDef methods[] = {
    {"accept", (PyCFunction)(void (*)(void))accept, METH_FASTCALL,
     "accept(text, receiver, line=None, file=None, quiet=False): the Message of a line the scanner is sure of "
     "(with quiet, one the full pass gives with no finding at all, no note either), or None."},
    {"form", (PyCFunction)(void (*)(void))form, METH_FASTCALL,
     "form(text, receiver): the JSON form (a dict) of a line the scanner is sure of, or None."},
    {"forms", (PyCFunction)(void (*)(void))forms, METH_FASTCALL,
     "forms(lines, receiver, rest): an iterator over each line's JSON form where the scanner is sure of it, else "
     "rest(text, receiver, number)'s answer (numbers from 1)."},
    {"fault", (PyCFunction)(void (*)(void))fault, METH_FASTCALL,
     "fault(text, receiver=None): the first fault of a line accept() declined, (FAULT_SYNTAX, column, expected, "
     "None), (FAULT_REPEATED, column, end, None), or with the receiver (FAULT_VALUE | FAULT_ID | FAULT_MISSING | "
     "FAULT_RULE, column, end, what a Python decoder's ValueError said of a refused value, the sender an id does not "
     "start with, the first required key missing, the index of the rule that does not hold, or None), "
     "or None: not sure."},
    {"verdict", (PyCFunction)(void (*)(void))verdict, METH_FASTCALL,
     "verdict(text, plans, profiles): True where the quiet scan is sure of the line under plans (type name -> "
     "plan) and profiles (profile name -> plans), or None: not sure. Nothing is built; nothing need be configured."},
    {"row", (PyCFunction)(void (*)(void))row, METH_FASTCALL,
     "row(text, receiver, keys, file, line, column, field, ts, version): the line of JSON Lines (newline included) "
     "of the message record of a candidate the scanner is sure of, as Record.to_jsonl writes it, or None: not sure."},
    {"line_row", (PyCFunction)(void (*)(void))line_row, METH_FASTCALL,
     "line_row(text, receiver, keys, file, line, version): (type, the line of JSON Lines of its one message "
     "record) for a plain log line holding one candidate the scanner is sure of, its time read, or None: not sure."},
    {"plain_start", plain_start, METH_O,
     "plain_start(text): where the one candidate of a log line that is its own frame starts (0-based; it runs to "
     "the line's end, as frames_of and candidates read it), or -1: not sure."},
    {"dumps", dumps, METH_O,
     "dumps(value): its JSON text as json.dumps(value, ensure_ascii=True) writes it, or None: not sure."},
    {"dumps_object", (PyCFunction)(void (*)(void))dumps_object, METH_FASTCALL,
     "dumps_object(keys, values): json.dumps(dict(zip(keys, values)), ensure_ascii=True), a value that is a time in "
     "UTC written as RFC 3339 text with microseconds and Z, or None: not sure."},
    {"compact", compact, METH_O,
     "compact(value): its JSON text as json.dumps(value, ensure_ascii=False, separators=(',', ':')) writes it, or "
     "None: not sure."},
    {"struct_columns", (PyCFunction)(void (*)(void))struct_columns, METH_FASTCALL,
     "struct_columns(forms, keys): ([forms[i].get(key) for i] for each key + [compact(slots or {}) for i], the "
     "indexes of the forms it is not sure of)."},
    {"utc_time", (PyCFunction)(void (*)(void))utc_time, METH_FASTCALL,
     "utc_time(text, end, whole): the time in UTC text[:end] starts with (whole: is) when it is written "
     "YYYY-MM-DD[T ]HH:MM:SS[.fraction]Z, or None: not sure."},
    {"strings", (PyCFunction)(void (*)(void))json_strings, METH_FASTCALL,
     "strings(text, at): (pointer, raw body, column) of each string value of the JSON text text[at:] whose raw "
     "body holds RW or \\u, in order, or None: not sure (a key written with an escape)."},
    {"configure", configure, METH_VARARGS, "configure(Message, Source, descriptors, resolve, foreign, core_plans)"},
    {"make_plan", make_plan, METH_VARARGS,
     "make_plan(name, profile, specs, rules, tail_max, required=None): one type's tables."},
    {"check", check, METH_VARARGS, "check(name, text): one native character check (for tests)."},
    {"native", native_hook, METH_VARARGS, "native(kind, inner, text, lo, hi, codes): one native decode (for tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_scan",
    "The accept path's table-driven scanner in C (rogerwilco.core.scanner builds its tables).", -1, methods,
};

PyMODINIT_FUNC PyInit__scan(void) {
    if (PyType_Ready(&PlanType) < 0 || PyType_Ready(&FormsType) < 0 || PyType_Ready(&ColumnsType) < 0) return NULL;
    for (int c = 0; c < 256; c++) {
        tail_byte[c] = (unsigned char)tail_char((Py_UCS4)c);
        tail_or_space[c] = (unsigned char)(c == ' ' ? 3 : tail_byte[c]);
        value_byte[c] = (unsigned char)slot_value_char((Py_UCS4)c);
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    version = PyUnicode_InternFromString("RW1");
    record_message = PyUnicode_InternFromString("message");
    key_re = PyUnicode_InternFromString("re");
    key_from = PyUnicode_InternFromString("from");
    key_to = PyUnicode_InternFromString("to");
    key_item = PyUnicode_InternFromString("item");
    key_v = PyUnicode_InternFromString("v");
    key_type = PyUnicode_InternFromString("type");
    key_id = PyUnicode_InternFromString("id");
    key_slots = PyUnicode_InternFromString("slots");
    key_tail = PyUnicode_InternFromString("tail");
    str_tilde = PyUnicode_InternFromString("~");
    str_tilde0 = PyUnicode_InternFromString("~0");
    str_slash = PyUnicode_InternFromString("/");
    str_tilde1 = PyUnicode_InternFromString("~1");
    if (version == NULL || record_message == NULL || key_re == NULL || key_from == NULL || key_to == NULL
            || key_item == NULL || key_v == NULL || key_type == NULL || key_id == NULL || key_slots == NULL || key_tail == NULL || str_tilde == NULL
            || str_tilde0 == NULL || str_slash == NULL || str_tilde1 == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *names[FORM_FIELDS] = {key_v, key_type, key_id, key_re, key_from, key_to, key_item, key_slots, key_tail};
    if ((form_template = PyDict_New()) == NULL) { Py_DECREF(m); return NULL; }
    for (int i = 0; i < FORM_FIELDS; i++)
        if (PyDict_SetItem(form_template, names[i], Py_None) < 0) { Py_DECREF(m); return NULL; }
    static const char *kinds[K_COUNT] = {"KEEP", "SET", "AGENT", "MSGID", "DATE", "TIME", "MONEY", "NUM", "DIGEST",
                                         "BOOL", "INT", "DAYS", "CONSTRAINT", "LIST", "CALL"};
    for (int i = 0; i < K_COUNT; i++)
        if (PyModule_AddIntConstant(m, kinds[i], i) < 0) { Py_DECREF(m); return NULL; }
    static const char *faults[] = {"FAULT_SYNTAX", "FAULT_REPEATED", "FAULT_VALUE", "FAULT_ID", "FAULT_MISSING",
                                   "FAULT_RULE", "EXPECT_SPACE", "EXPECT_SLOT_OR_MARK", "EXPECT_TAIL", "EXPECT_END"};
    static const int fault_codes[] = {FAULT_SYNTAX, FAULT_REPEATED, FAULT_VALUE, FAULT_ID, FAULT_MISSING,
                                      FAULT_RULE, EXPECT_SPACE, EXPECT_SLOT_OR_MARK, EXPECT_TAIL, EXPECT_END};
    for (int i = 0; i < 10; i++)
        if (PyModule_AddIntConstant(m, faults[i], fault_codes[i]) < 0) { Py_DECREF(m); return NULL; }
    if (PyModule_AddStringConstant(m, "BUILT_FROM", RW1_BUILT_FROM) < 0) { Py_DECREF(m); return NULL; }
    Py_INCREF(&PlanType);
    if (PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0) { Py_DECREF(&PlanType); Py_DECREF(m); return NULL; }
    Py_INCREF(&ColumnsType);
    if (PyModule_AddObject(m, "Columns", (PyObject *)&ColumnsType) < 0) {
        Py_DECREF(&ColumnsType);
        Py_DECREF(m);
        return NULL;
    }
    if (plain_steps_ready(m) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
