package org.respite;

/** Status {@code invalid_setting}: a setting is unknown or its value is not accepted. */
public class InvalidSettingException extends RespiteException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    public InvalidSettingException(String setting, String message) {
        super("invalid_setting", message);
        this.setting = setting;
    }

    /** The setting's name as the spec writes it, e.g. {@code "failures_to_enter_recovery"}. */
    public String getSetting() {
        return setting;
    }
}
