//! serde's and toml's English error messages in the reader's words: the
//! common shapes ("invalid type: string \"yes\", expected a boolean",
//! "unknown field `x`, expected one of ...", "missing field `x`") become
//! catalogue sentences; anything else stays as the parser said it.

use super::quoted_text;
use crate::i18n::{i18n_text, Text};

/// What serde expected, in words: "a boolean" as the values it takes.
fn wanted(expected: &str) -> Text {
    match expected.trim() {
        "a boolean" => i18n_text("true or false"),
        "a string" | "string" => i18n_text("text in quotes"),
        "u8" | "u16" | "u32" | "u64" | "i64" | "an integer" | "usize" => i18n_text("a whole number"),
        "a sequence" => i18n_text("a list in [ ]"),
        "a map" | "struct" => i18n_text("a table"),
        other => Text::from(other.to_owned()),
    }
}

/// What serde found: `string "yes"` as the text itself.
fn found(unexpected: &str) -> String {
    let unexpected = unexpected.trim();
    for kind in ["string ", "integer ", "floating point ", "boolean ", "character "] {
        if let Some(value) = unexpected.strip_prefix(kind) {
            return value.trim_matches('"').trim_matches('`').to_owned();
        }
    }
    unexpected.to_owned()
}

/// The backquoted names in `list` ("`a`, `b`" -> "a, b").
fn names(list: &str) -> String {
    list.split(',').map(|n| n.trim().trim_matches('`')).filter(|n| !n.is_empty()).collect::<Vec<_>>().join(", ")
}

/// `message` (serde's or toml's) as a sentence of the catalogue where its
/// shape is a known one.
pub fn serde_words(message: &str) -> Text {
    let message = message.trim();
    if let Some(rest) = message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: ")) {
        if let Some((got, expected)) = rest.split_once(", expected ") {
            // Translators: {value} is what the file holds; {wanted} what belongs there ("true or false").
            return i18n_text("{value} does not fit here: give {wanted}")
                .arg_text("value", quoted_text(&found(got)))
                .arg_text("wanted", wanted(expected));
        }
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((key, expected)) = rest.split_once('`') {
            let keys = expected
                .trim_start_matches(',')
                .trim()
                .trim_start_matches("expected one of ")
                .trim_start_matches("expected ")
                .to_owned();
            // Translators: {key} is the unknown key; {keys} the keys allowed there.
            return i18n_text("unknown key {key}: the keys here are {keys}")
                .arg_text("key", quoted_text(key))
                .arg("keys", names(&keys));
        }
    }
    if let Some(key) = message.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
        // Translators: {key} is a key the table needs.
        return i18n_text("the key {key} is missing").arg_text("key", quoted_text(key));
    }
    if let Some(key) = message.strip_prefix("duplicate key `").and_then(|r| r.split('`').next()) {
        // Translators: {key} is a key given twice.
        return i18n_text("the key {key} is given twice").arg_text("key", quoted_text(key));
    }
    Text::from(message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_shapes_become_sentences_and_the_rest_stays() {
        assert_eq!(
            serde_words("invalid type: string \"yes\", expected a boolean").english(),
            "“yes” does not fit here: give true or false"
        );
        assert_eq!(
            serde_words("unknown field `lockd`, expected one of `profile`, `locked`").english(),
            "unknown key “lockd”: the keys here are profile, locked"
        );
        assert_eq!(serde_words("unknown field `x`, expected `id`").english(), "unknown key “x”: the keys here are id");
        assert_eq!(serde_words("missing field `id`").english(), "the key “id” is missing");
        assert_eq!(
            serde_words("invalid type: integer `3`, expected a string").english(),
            "“3” does not fit here: give text in quotes"
        );
        assert_eq!(serde_words("something new").english(), "something new");
    }
}
