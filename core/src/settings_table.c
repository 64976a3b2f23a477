/* The public settings table, the components and the profiles, generated
 * from the list in settings_table.h, and the checks of its assumptions. */
#include "settings_table.h"

#include <float.h>

/* Choice words: "none|full|equal|decorrelated" and "none, full, equal, decorrelated". */
#define WORD_FIRST_(E, word) #word
#define WORD_BAR_(E, word) "|" #word
#define WORD_COMMA_(E, word) ", " #word

#define ROW_(C, c, ID, name, KIND, ...) [RESPITE_SETTING_##C##_##ID] = KIND##_ROW_(#c, #name, __VA_ARGS__),

#define INTEGER_ROW_(c, name, def, lo, hi, doc) \
    {c, name, RESPITE_SETTING_INTEGER, def, NULL, lo, hi, 0, 0, NULL, "an integer from " #lo " to " #hi, doc}
#define NUMBER_ROW_(c, name, def, lo, hi, doc) \
    {c, name, RESPITE_SETTING_NUMBER, def, NULL, lo, hi, 0, 0, NULL, "a number from " #lo " to " #hi, doc}
#define NUMBER_ABOVE_ROW_(c, name, def, lo, hi, doc)                                                         \
    {c, name, RESPITE_SETTING_NUMBER, def, NULL, lo, hi, 1, 0, NULL,                                        \
     "a number greater than " #lo " and at most " #hi, doc}
#define NUMBER_AT_MOST_ROW_(c, name, def, hi, note, doc) \
    {c, name, RESPITE_SETTING_NUMBER, def, NULL, -DBL_MAX, hi, 0, 0, NULL, "a number at most " #hi note, doc}
#define BOOLEAN_ROW_(c, name, def, doc) \
    {c, name, RESPITE_SETTING_BOOLEAN, def, NULL, 0, 1, 0, 0, NULL, "true or false", doc}
#define CHOICE_ROW_(c, name, def, WORDS, doc)                                                               \
    {c, name, RESPITE_SETTING_CHOICE, 0, #def, 0, 0, 0, 0, WORDS(WORD_FIRST_, WORD_BAR_),                   \
     "one of " WORDS(WORD_FIRST_, WORD_COMMA_), doc}
#define STRING_ROW_(c, name, def, accepted, doc) \
    {c, name, RESPITE_SETTING_STRING, 0, def, 0, 0, 0, 0, NULL, accepted, doc}
#define HEADER_ROW_(c, name, def, doc) \
    STRING_ROW_(c, name, def, "text without line breaks (CR or LF), as it goes into a header", doc)
#define HEADER_NAME_ROW_(c, name, def, doc)                                                                  \
    STRING_ROW_(c, name, def, "\"\" or a header name (an HTTP token)", doc)
#define URL_ROW_(c, name, def, doc) STRING_ROW_(c, name, def, "an http:// or https:// URL", doc)
#define LIST_ROW_(c, name, def, accepted, doc) \
    {c, name, RESPITE_SETTING_LIST, 0, def, 0, 0, 0, 0, NULL, accepted, doc}
#define NAME_ROW_(c, name, bytes)                                                                     \
    STRING_ROW_(c, name, "", "UTF-8 text of at most " #bytes " bytes, without control characters", \
                "name of this " c " in log lines and errors")

const respite_setting_info respite_settings_table[] = {
#define ROWS_OF_(C, c) RESPITE_SETTINGS_##C(ROW_, C, c)
    RESPITE_COMPONENTS(ROWS_OF_)
#undef ROWS_OF_
};

/* How set_text checks each row's text. */
#define FORMAT_(C, c, ID, name, KIND, ...) [RESPITE_SETTING_##C##_##ID] = KIND##_FORMAT_,
#define INTEGER_FORMAT_ RESPITE_TEXT_NONE
#define NUMBER_FORMAT_ RESPITE_TEXT_NONE
#define NUMBER_ABOVE_FORMAT_ RESPITE_TEXT_NONE
#define NUMBER_AT_MOST_FORMAT_ RESPITE_TEXT_NONE
#define BOOLEAN_FORMAT_ RESPITE_TEXT_NONE
#define CHOICE_FORMAT_ RESPITE_TEXT_CHOICE
#define STRING_FORMAT_ RESPITE_TEXT_ANY
#define HEADER_FORMAT_ RESPITE_TEXT_HEADER
#define HEADER_NAME_FORMAT_ RESPITE_TEXT_HEADER_NAME
#define URL_FORMAT_ RESPITE_TEXT_URL
#define LIST_FORMAT_ RESPITE_TEXT_LIST
#define NAME_FORMAT_ RESPITE_TEXT_NAME

const unsigned char respite_setting_formats[] = {
#define FORMATS_OF_(C, c) RESPITE_SETTINGS_##C(FORMAT_, C, c)
    RESPITE_COMPONENTS(FORMATS_OF_)
#undef FORMATS_OF_
};

#define COUNT_(...) +1
#define COMPONENT_(C, c) {#c, RESPITE_SETTING_FIRST_##C, 0 RESPITE_SETTINGS_##C(COUNT_, C, c)},
const respite_component respite_components[] = {RESPITE_COMPONENTS(COMPONENT_)};
const int respite_components_size = (int)(sizeof respite_components / sizeof respite_components[0]);

const respite_profile respite_profiles[] = {
    {"cloud_request", "gate", ""},
    {"usage_sharing", "gate",
     "failures_to_enter_recovery=10,failures_window_seconds=100,recovery_seconds=2,"
     "recovery_multiplier=2,max_recovery_seconds=300,probes=1"},
};
const int respite_profiles_size = (int)(sizeof respite_profiles / sizeof respite_profiles[0]);

/* ------------------------------------------------ the table's assumptions */

/* One row per id, ids dense from 0. */
_Static_assert(sizeof respite_settings_table / sizeof respite_settings_table[0] == RESPITE_SETTING_COUNT_,
               "every setting id has exactly one row");
_Static_assert(sizeof respite_setting_formats == RESPITE_SETTING_COUNT_, "every setting id has a format");

/* Every name fits err->setting; integer and boolean defaults are within
 * their bounds (a fractional default is no integer constant expression:
 * tests/unit/test_settings.c checks every default at run time). */
#define CHECK_(C, c, ID, name, KIND, ...)                                                                \
    _Static_assert(sizeof #name <= RESPITE_ERROR_SETTING_MAX, #c "." #name ": name longer than "      \
                                                                       "err->setting holds");           \
    KIND##_CHECK_(c, name, __VA_ARGS__)
#define INTEGER_CHECK_(c, name, def, lo, hi, doc) \
    _Static_assert((lo) <= (def) && (def) <= (hi), #c "." #name ": default out of bounds");
#define BOOLEAN_CHECK_(c, name, def, doc) _Static_assert((def) == 0 || (def) == 1, #c "." #name ": not 0 or 1");
#define NUMBER_CHECK_(...)
#define NUMBER_ABOVE_CHECK_(...)
#define NUMBER_AT_MOST_CHECK_(...)
#define CHOICE_CHECK_(...)
#define STRING_CHECK_(...)
#define HEADER_CHECK_(...)
#define HEADER_NAME_CHECK_(...)
#define URL_CHECK_(...)
#define LIST_CHECK_(...)
#define NAME_CHECK_(c, name, bytes) \
    _Static_assert((bytes) == RESPITE_NAME_MAX - 1, #c "." #name ": a name and its NUL must fill RESPITE_NAME_MAX");
#define CHECKS_OF_(C, c) RESPITE_SETTINGS_##C(CHECK_, C, c)
RESPITE_COMPONENTS(CHECKS_OF_)

/* respite_setting_choice gives the word's position: the public enums'
 * values, in the same order. */
#define JITTER_AT_(E, word) JITTER_AT_##E,
enum { RESPITE_JITTER_WORDS(JITTER_AT_, JITTER_AT_) };
#define JITTER_SAME_(E, word)                                      \
    _Static_assert((int)RESPITE_JITTER_##E == (int)JITTER_AT_##E, \
                   "jitter word " #word " is not respite_jitter's value");
RESPITE_JITTER_WORDS(JITTER_SAME_, JITTER_SAME_)
#define OVERFLOW_AT_(E, word) OVERFLOW_AT_##E,
enum { RESPITE_OVERFLOW_WORDS(OVERFLOW_AT_, OVERFLOW_AT_) };
#define OVERFLOW_SAME_(E, word)                                        \
    _Static_assert((int)RESPITE_OVERFLOW_##E == (int)OVERFLOW_AT_##E, \
                   "overflow word " #word " is not respite_overflow's value");
RESPITE_OVERFLOW_WORDS(OVERFLOW_SAME_, OVERFLOW_SAME_)
#define DURABILITY_AT_(E, word) DURABILITY_AT_##E,
enum { RESPITE_DURABILITY_WORDS(DURABILITY_AT_, DURABILITY_AT_) };
#define DURABILITY_SAME_(E, word)                                          \
    _Static_assert((int)RESPITE_DURABILITY_##E == (int)DURABILITY_AT_##E, \
                   "durability word " #word " is not respite_durability's value");
RESPITE_DURABILITY_WORDS(DURABILITY_SAME_, DURABILITY_SAME_)
