//! Whether a custom profile's name or id could pass for something else, by
//! the rules of Unicode Technical Standard #39 ("Unicode Security
//! Mechanisms") and NFKC normalization.
//!
//! A name shows in the window, in the tray's menu and, through the
//! PowerProfiles API, where a person picks a profile: "Рower Saver" with a
//! Cyrillic Р, "Work\u{2028}Power Saver" that shows as two menu lines, or a
//! name of nothing but blank characters would mislead them. The rules
//! (docs/security.md, "Names"):
//! - names and ids are kept in NFKC form (fullwidth letters become plain
//!   ones, ligatures their letters);
//! - no format, separator, private-use or unassigned characters, no other
//!   space than U+0020, nothing that renders blank (U+3164, U+2800);
//! - at least one letter or digit, each of them one that the general
//!   security profile allows in identifiers;
//! - at most [`MAX_COMBINING_MARKS`] combining marks in a row;
//! - letters of one script, or of the combinations TS #39 calls moderately
//!   restrictive (Latin with Han and Kana, Latin with one other script
//!   that does not look like it: not Cyrillic, not Greek);
//! - a name or id whose confusable skeleton (lowercase, without spaces,
//!   `-`, `_` or `.`) is that of a built-in profile's name or id, or of
//!   another profile's, is taken.
//!
//! These checks apply when a profile is saved; a file saved by an older
//! version still loads (`custom::check_shape`).

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};
use unicode_script::{Script, UnicodeScript};
use unicode_security::{skeleton, GeneralSecurityProfile, RestrictionLevel, RestrictionLevelDetection};

use super::panel::PanelProfile;
use super::profile::BuiltinProfile;
use crate::i18n::{i18n_text, Text};

/// The most combining marks accepted in a row (Vietnamese needs two, some
/// Indic syllables three; a "Zalgo" stack has dozens).
pub const MAX_COMBINING_MARKS: usize = 3;

/// The form a name or id is kept and compared in: NFKC.
pub fn normalize(text: &str) -> String {
    text.nfkc().collect()
}

/// `U+202E`, for messages.
fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Default-ignorable code points (Unicode's DerivedCoreProperties), which
/// render as nothing, less the variation selectors that emoji and CJK
/// variants need. Most are format characters (`Cf`); the Hangul fillers
/// are letters that show nothing.
fn renders_nothing(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180D}'
            | '\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E00FF}'
            | '\u{E01F0}'..='\u{E0FFF}'
    )
        // A blank that is a symbol, not a space: the Braille blank.
        || c == '\u{2800}'
}

fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

fn is_letter_or_digit(c: char) -> bool {
    matches!(c.general_category_group(), GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number)
}

/// What is wrong with a name, if anything. Characters are named as they
/// were written (U+3164, which NFKC turns into another filler).
pub fn name_problem(name: &str) -> Option<Text> {
    characters_problem(name, &[' '])
}

/// What is wrong with an id (already checked by `custom::is_valid_id`:
/// lowercase letters, digits, `-` and `_`), if anything.
pub fn id_problem(id: &str) -> Option<Text> {
    if normalize(id) != id {
        return Some(i18n_text("{value} is not in Unicode's NFKC form").arg("value", crate::core::parse::quote(id)));
    }
    characters_problem(id, &['-', '_'])
}

fn characters_problem(written: &str, separators: &[char]) -> Option<Text> {
    use GeneralCategoryGroup as G;
    for c in written.chars() {
        for kept in c.to_string().nfkc() {
            let group = kept.general_category_group();
            if renders_nothing(kept) || matches!(group, G::Other) {
                // Cc, Cf, Cs, Co, Cn: control, format, surrogate, private use, unassigned.
                return Some(
                    i18n_text("contains {code}, a character that is invisible or has no meaning of its own")
                        .arg("code", code(c)),
                );
            }
            if group == G::Separator && !separators.contains(&kept) {
                return Some(
                    i18n_text("contains {code}, a line break or a space other than the plain one").arg("code", code(c)),
                );
            }
        }
    }
    let text = normalize(written);
    let mut marks_in_a_row = 0;
    for c in text.chars() {
        if is_mark(c) {
            marks_in_a_row += 1;
            if marks_in_a_row > MAX_COMBINING_MARKS {
                return Some(
                    i18n_text("stacks more than {limit} accents or other combining marks on one letter")
                        .arg("limit", MAX_COMBINING_MARKS),
                );
            }
        } else {
            marks_in_a_row = 0;
        }
    }
    let letters: String = text.chars().filter(|c| is_letter_or_digit(*c) || is_mark(*c)).collect();
    if !letters.chars().any(is_letter_or_digit) {
        return Some(i18n_text("needs at least one letter or digit"));
    }
    if let Some(c) = letters.chars().find(|c| !c.identifier_allowed()) {
        return Some(
            i18n_text("contains {code}, which is not recommended in names (Unicode's general security profile)")
                .arg("code", code(c)),
        );
    }
    if letters.as_str().detect_restriction_level() > RestrictionLevel::ModeratelyRestrictive {
        return Some(
            i18n_text("mixes letters of scripts that look alike ({scripts}): write it in one script")
                .arg("scripts", scripts(&letters)),
        );
    }
    None
}

/// The scripts of the letters of `text`, for messages: "Cyrillic, Latin".
fn scripts(text: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for c in text.chars() {
        let script = c.script();
        if matches!(script, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        let name = script.full_name();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort_unstable();
    names.join(", ")
}

/// What `text` looks like, for comparing: NFKC, lowercase, without spaces,
/// `-`, `_`, `.` or `'`, then TS #39's confusable skeleton. Two names with
/// the same key can pass for each other ("рower" and "power", "Power
/// Saver" and "power-saver").
pub fn look_alike_key(text: &str) -> String {
    let plain: String = normalize(text)
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '_' | '.' | '\''))
        .collect();
    skeleton(&plain).collect::<String>().to_lowercase()
}

/// Which of a profile's two words is at fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Its name.
    Name,
    /// Its id.
    Id,
}

/// Why a profile about to be saved as `id` and `name` could pass for a
/// built-in profile (its id, English name or desktop panel name), a
/// reserved id, or one of `others` (the other saved profiles' ids and
/// names): the field at fault and what it looks like.
pub fn look_alike(id: &str, name: &str, others: &[(&str, &str)]) -> Option<(Part, Text)> {
    for (field, text) in [(Part::Name, name), (Part::Id, id)] {
        let key = look_alike_key(text);
        for builtin in BuiltinProfile::ALL {
            let english = builtin.name().english();
            let shown = [builtin.id(), english.as_str(), PanelProfile::of_builtin(builtin).name()];
            if shown.into_iter().any(|s| look_alike_key(s) == key) {
                return Some((
                    field,
                    i18n_text("looks like the built-in profile “{name}”: choose a name that reads differently")
                        .arg_text("name", builtin.name()),
                ));
            }
        }
        for reserved in ["default", crate::core::measure::KERNEL_DEFAULT] {
            if look_alike_key(reserved) == key {
                return Some((
                    field,
                    i18n_text("looks like “{word}”, which Gearshift keeps for itself").arg("word", reserved),
                ));
            }
        }
        if let Some(other) = named_like(&key, others) {
            return Some((
                field,
                i18n_text(
                    "looks like your profile “{name}”: choose a name that reads differently, or save over that one",
                )
                .arg("name", other),
            ));
        }
    }
    None
}

/// The name of the profile among `profiles` (ids and names) whose id or
/// name has the look-alike `key`.
fn named_like<'a>(key: &str, profiles: &[(&str, &'a str)]) -> Option<&'a str> {
    profiles.iter().find(|(i, n)| look_alike_key(i) == key || look_alike_key(n) == key).map(|(_, name)| *name)
}

/// Why a profile about to be saved as `id` and `name` could pass for one
/// the administrator declared (`declared`: their ids and names), if it
/// could: the field at fault and what it looks like.
pub fn look_alike_declared(id: &str, name: &str, declared: &[(&str, &str)]) -> Option<(Part, Text)> {
    for (field, text) in [(Part::Name, name), (Part::Id, id)] {
        let key = look_alike_key(text);
        if let Some(other) = named_like(&key, declared) {
            return Some((
                field,
                i18n_text(
                    "looks like “{name}”, a profile your administrator set: choose a name that reads differently",
                )
                .arg("name", other),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(name: &str) -> bool {
        name_problem(name).is_some()
    }

    #[test]
    fn names_people_write_are_accepted() {
        for name in
            ["Büro", "日本語 profile", "Ρεύμα", "Офис", "Work (quiet)", "Nacht 2", "Tiếng Việt", "हिन्दी", "🔋 Battery"]
        {
            assert!(!refused(name), "{name}: {:?}", name_problem(name).map(|t| t.english()));
        }
    }

    #[test]
    fn names_that_hide_or_pretend_are_refused() {
        let zalgo: String = std::iter::once('Z').chain(std::iter::repeat_n('\u{0301}', 63)).collect();
        for name in [
            "Work\u{200B}",
            "\u{FEFF}Work",
            "Po\u{00AD}wer",
            "Work\u{2028}Power Saver",
            "Work\u{2029}",
            "Tag\u{E0041}",
            "\u{3164}",
            "\u{2800}\u{2800}",
            "\u{3164}\u{3164} ",
            zalgo.as_str(),
            "Рower Saver",
            "Office\u{E000}",
            "Work\u{00A0}\u{1680}",
            "!!!",
        ] {
            assert!(refused(name), "{name:?} was accepted");
        }
        // NFKC turns fullwidth letters and the ideographic space into plain ones.
        assert_eq!(normalize("Ｗｏｒｋ\u{3000}Ｍｏｄｅ"), "Work Mode");
        assert!(!refused("Ｗｏｒｋ\u{3000}Ｍｏｄｅ"));
    }

    #[test]
    fn the_messages_say_what_is_wrong() {
        let message = |name: &str| name_problem(name).map(|t| t.english()).unwrap_or_default();
        assert!(message("Work\u{200B}").contains("U+200B"), "{}", message("Work\u{200B}"));
        assert!(message("A\u{2028}B").contains("U+2028"));
        assert!(message("\u{2800}").contains("U+2800"));
        assert!(message("\u{3164}").contains("U+3164"), "named as written, not as NFKC keeps it");
        assert!(message("Рower").contains("Cyrillic, Latin"), "{}", message("Рower"));
        assert!(message("---").contains("letter or digit"));
    }

    #[test]
    fn ids_that_look_like_others_share_a_key() {
        assert_eq!(look_alike_key("рower"), look_alike_key("power"));
        assert_eq!(look_alike_key("perfоrmance"), look_alike_key("performance"));
        assert_eq!(look_alike_key("Power Saver"), look_alike_key("power-saver"));
        assert_eq!(look_alike_key("BALANCE_PERFORMANCE"), look_alike_key("balance performance"));
        assert_ne!(look_alike_key("Büro"), look_alike_key("Buro"), "an umlaut is a letter of its own");
        assert!(id_problem("рower").is_some(), "a Cyrillic р among Latin letters");
        assert!(id_problem("ｗｏｒｋ").is_some(), "not NFKC");
        assert!(id_problem("büro").is_none());
        assert!(id_problem("日本語").is_none());
    }
}
