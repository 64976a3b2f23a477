/* How the core reads its own settings: by id (core/src/settings_table.h).
 * Every id is the row of that name; a value set by name is read back by id;
 * a choice reads as the public enum's value; NULL settings read defaults. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../support/test_support.h"
#include "../../core/src/internal.h"

/* The list's ids, names and components, as the public table has them. */
static void test_every_id_is_its_row(void **state)
{
    (void)state;
    static const struct {
        int id;
        const char *component, *name;
    } ids[] = {
#define ID_(C, c, ID, name, ...) {RESPITE_SETTING_##C##_##ID, #c, #name},
#define IDS_OF_(C, c) RESPITE_SETTINGS_##C(ID_, C, c)
        RESPITE_COMPONENTS(IDS_OF_)
    };
    assert_int_equal(sizeof ids / sizeof ids[0], respite_setting_count());
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        assert_int_equal(ids[i].id, (int)i);
        assert_ptr_equal(respite_setting_at(ids[i].id), respite_setting_find(ids[i].component, ids[i].name));
    }
    assert_int_equal(RESPITE_SETTING_FIRST_GATE, 0);
    assert_string_equal(respite_setting_at(RESPITE_SETTING_FIRST_BACKOFF)->component, "backoff");
    assert_string_equal(respite_setting_at(RESPITE_SETTING_FIRST_BACKOFF - 1)->component, "gate");
    assert_string_equal(respite_setting_at(RESPITE_SETTING_FIRST_CLIENT)->component, "client");
}

static void test_values_set_by_name_read_by_id(void **state)
{
    (void)state;
    respite_settings *g = new_settings("gate");
    assert_int_equal(respite_settings_set_text(g, "probes", "7", NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(g, "jitter", 0.25, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_boolean(g, "recover_never", 1, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_integer(g, "seed", INT64_C(9007199254740991), NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_text(g, "name", "billing", NULL), RESPITE_OK);
    assert_int_equal(respite_setting_integer(g, RESPITE_SETTING_GATE_PROBES), 7);
    assert_true(respite_setting_number(g, RESPITE_SETTING_GATE_JITTER) == 0.25);
    assert_int_equal(respite_setting_flag(g, RESPITE_SETTING_GATE_RECOVER_NEVER), 1);
    assert_int_equal(respite_setting_flag(g, RESPITE_SETTING_GATE_COUNT_ALL_FAILURES), 0);
    assert_true(respite_setting_integer(g, RESPITE_SETTING_GATE_SEED) == INT64_C(9007199254740991));
    assert_string_equal(respite_setting_text(g, RESPITE_SETTING_GATE_NAME), "billing");
    respite_settings_free(g);

    respite_settings *s = new_settings("sender");
    assert_string_equal(respite_setting_text(s, RESPITE_SETTING_SENDER_NAME), "");
    assert_string_equal(respite_setting_text(s, RESPITE_SETTING_SENDER_SEPARATOR), "\n");
    assert_int_equal(respite_settings_set_text(s, "separator", ",", NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_text(s, "separator", "", NULL), RESPITE_OK);
    assert_string_equal(respite_setting_text(s, RESPITE_SETTING_SENDER_SEPARATOR), "");
    /* a refused value leaves the one before (E12) */
    assert_int_equal(respite_settings_set_text(s, "name", "a\nb", NULL), RESPITE_E_INVALID_SETTING);
    assert_string_equal(respite_setting_text(s, RESPITE_SETTING_SENDER_NAME), "");
    respite_settings_free(s);
}

/* A choice reads as its word's position, which is the public enum's value. */
static void test_choices_read_as_the_public_enums(void **state)
{
    (void)state;
    static const struct {
        const char *word;
        int value;
    } jitters[] = {{"none", RESPITE_JITTER_NONE},
                   {"full", RESPITE_JITTER_FULL},
                   {"equal", RESPITE_JITTER_EQUAL},
                   {"decorrelated", RESPITE_JITTER_DECORRELATED}};
    respite_settings *b = new_settings("backoff");
    assert_int_equal(respite_setting_choice(b, RESPITE_SETTING_BACKOFF_JITTER), RESPITE_JITTER_NONE);
    for (size_t i = 0; i < sizeof jitters / sizeof jitters[0]; i++) {
        assert_int_equal(respite_settings_set_text(b, "jitter", jitters[i].word, NULL), RESPITE_OK);
        assert_int_equal(respite_setting_choice(b, RESPITE_SETTING_BACKOFF_JITTER), jitters[i].value);
        assert_string_equal(respite_setting_text(b, RESPITE_SETTING_BACKOFF_JITTER), jitters[i].word);
    }
    assert_int_equal(respite_settings_set_text(b, "jitter", "half", NULL), RESPITE_E_INVALID_SETTING);
    assert_int_equal(respite_setting_choice(b, RESPITE_SETTING_BACKOFF_JITTER), RESPITE_JITTER_DECORRELATED);
    respite_settings_free(b);

    respite_settings *q = new_settings("queue");
    assert_int_equal(respite_setting_choice(q, RESPITE_SETTING_QUEUE_OVERFLOW), RESPITE_OVERFLOW_DROP_OLDEST);
    assert_int_equal(respite_settings_set_text(q, "overflow", "drop_newest", NULL), RESPITE_OK);
    assert_int_equal(respite_setting_choice(q, RESPITE_SETTING_QUEUE_OVERFLOW), RESPITE_OVERFLOW_DROP_NEWEST);
    respite_settings_free(q);
}

/* NULL settings read every row's default, as fresh settings do. */
static void test_null_settings_read_the_defaults(void **state)
{
    (void)state;
    for (int id = 0; id < RESPITE_SETTING_COUNT_; id++) {
        const respite_setting_info *row = respite_setting_at(id);
        respite_settings *s = new_settings(row->component);
        if (row->default_text) {
            assert_string_equal(respite_setting_text(NULL, id), row->default_text);
            assert_string_equal(respite_setting_text(s, id), row->default_text);
        } else {
            assert_true(respite_setting_number(NULL, id) == row->default_number);
            assert_true(respite_setting_number(s, id) == row->default_number);
        }
        if (row->type == RESPITE_SETTING_CHOICE)
            assert_int_equal(respite_setting_choice(NULL, id), respite_setting_choice(s, id));
        respite_settings_free(s);
    }
    assert_int_equal(respite_setting_choice(NULL, RESPITE_SETTING_BACKOFF_JITTER), RESPITE_JITTER_NONE);
    assert_int_equal(respite_setting_integer(NULL, RESPITE_SETTING_GATE_FAILURES_TO_ENTER_RECOVERY), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_id_is_its_row),
        cmocka_unit_test(test_values_set_by_name_read_by_id),
        cmocka_unit_test(test_choices_read_as_the_public_enums),
        cmocka_unit_test(test_null_settings_read_the_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
