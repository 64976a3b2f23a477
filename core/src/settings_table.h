/* The settings table and profiles (defined in settings_table.c). */
#ifndef RESPITE_SETTINGS_TABLE_H
#define RESPITE_SETTINGS_TABLE_H

#include "internal.h"

extern const respite_setting_info respite_settings_table[];
extern const int respite_settings_table_size;

/* A profile: a component with some defaults changed ("name=value,..."). */
typedef struct respite_profile {
    const char *name;
    const char *component;
    const char *overrides;
} respite_profile;

extern const respite_profile respite_profiles[];
extern const int respite_profiles_size;

extern const char *const respite_components[];
extern const int respite_components_size;

#endif
