package io.quarkiverse.delayedjobs.runtime.cron;

import java.util.Optional;

import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Resolves an annotation value that is a config expression, {@code ${key}} or {@code ${key:default}}, at run time.
 */
public final class ConfigExpressions {

    private ConfigExpressions() {
    }

    public static boolean isExpression(String value) {
        return value != null && value.startsWith("${") && value.endsWith("}");
    }

    /**
     * Whether a schedule's value switches it off, as {@code @Scheduled} reads it: {@code off} or {@code disabled}, in
     * any case.
     */
    public static boolean isOff(String value) {
        return value.strip().equalsIgnoreCase("off") || value.strip().equalsIgnoreCase("disabled");
    }

    /** The config key {@code value} reads, or null when it is no expression. */
    public static String key(String value) {
        if (!isExpression(value)) {
            return null;
        }
        String inner = value.substring(2, value.length() - 1);
        int colon = inner.indexOf(':');
        return colon < 0 ? inner : inner.substring(0, colon);
    }

    public static String resolve(String value) {
        String key = key(value);
        if (key == null) {
            return value;
        }
        String inner = value.substring(2, value.length() - 1);
        int colon = inner.indexOf(':');
        return ConfigProvider.getConfig().getOptionalValue(key, String.class)
                .or(() -> colon < 0 ? Optional.empty() : Optional.of(inner.substring(colon + 1)))
                .orElseThrow(() -> new IllegalArgumentException("config property " + key + " of expression " + value
                        + " is not set"));
    }
}
