//! Translation helpers over gettext (domain `gearshift`).
//!
//! Two kinds of strings:
//! - the user side (window, tray, command line) translates at once with
//!   [`gettext`] (re-exported) and [`i18n_f`], which fills `{}` placeholders
//!   after translation;
//! - the core decides sentences but never translates them: it returns a
//!   [`Text`] (made with [`i18n_text`]), which JSON, D-Bus and logs show in
//!   English ([`Text::english`]) and people read translated
//!   ([`Text::localized`]). Its placeholders are named (`{cpus}`), so that
//!   translators see what each one is and may reorder them.
//!
//! [`i18n_plural`] is [`i18n_text`] with ngettext's plural forms.
//! `xgettext` finds all these keywords (po/meson.build).

pub use gettextrs::{gettext, ngettext};

/// The gettext domain of every Gearshift string.
pub const DOMAIN: &str = "gearshift";

/// Translates `msgid` and replaces each `{}` in order with `args`.
pub fn i18n_f(msgid: &str, args: &[&dyn std::fmt::Display]) -> String {
    fill(&gettext(msgid), args)
}

/// Replaces each `{}` in `template` with the next argument. Extra
/// placeholders stay as they are; extra arguments are ignored.
pub fn fill(template: &str, args: &[&dyn std::fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16 * args.len());
    let mut rest = template;
    let mut args = args.iter();
    while let Some(pos) = rest.find("{}") {
        out.push_str(&rest[..pos]);
        match args.next() {
            Some(arg) => out.push_str(&arg.to_string()),
            None => out.push_str("{}"),
        }
        rest = &rest[pos + 2..];
    }
    out.push_str(rest);
    out
}

/// A sentence chosen where nothing is translated, translated only where a
/// person reads it. Serializes as its English form; [`Text::to_wire`] and
/// [`Text::from_wire`] carry it whole (the helper's D-Bus errors), so that
/// the reader's side translates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    msgid: Cow<'static, str>,
    /// The plural form and the count that chooses (ngettext's).
    plural: Option<(Cow<'static, str>, u64)>,
    args: Vec<(Cow<'static, str>, Arg)>,
}

use std::borrow::Cow;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Arg {
    /// A value shown as it is (a number, a driver name).
    Plain(String),
    /// A nested sentence, translated with its parent.
    Text(Text),
}

/// Marks `msgid` for translation without translating it now.
pub fn i18n_text(msgid: &'static str) -> Text {
    Text { msgid: Cow::Borrowed(msgid), plural: None, args: Vec::new() }
}

/// Like [`i18n_text`], with a plural form: the count `n` chooses the form
/// (in English the singular for 1; in other languages their own rule).
/// The count is not filled in: pass it with [`Text::arg`] too.
pub fn i18n_plural(singular: &'static str, plural: &'static str, n: u64) -> Text {
    Text { msgid: Cow::Borrowed(singular), plural: Some((Cow::Borrowed(plural), n)), args: Vec::new() }
}

impl Text {
    /// Fills the placeholder `{name}` with a value shown as it is.
    #[must_use]
    pub fn arg(mut self, name: &'static str, value: impl std::fmt::Display) -> Text {
        self.args.push((Cow::Borrowed(name), Arg::Plain(value.to_string())));
        self
    }

    /// Fills the placeholder `{name}` with another sentence.
    #[must_use]
    pub fn arg_text(mut self, name: &'static str, value: Text) -> Text {
        self.args.push((Cow::Borrowed(name), Arg::Text(value)));
        self
    }

    /// Stable English: for JSON, D-Bus, logs and tests.
    pub fn english(&self) -> String {
        let template = match &self.plural {
            Some((plural, n)) if *n != 1 => plural,
            _ => &self.msgid,
        };
        self.render(template.to_string(), Text::english)
    }

    /// In the reader's language (English where there is no translation).
    pub fn localized(&self) -> String {
        let template = match &self.plural {
            Some((plural, n)) => ngettext(&*self.msgid, &**plural, u32::try_from(*n).unwrap_or(u32::MAX)),
            None => gettext(&*self.msgid),
        };
        self.render(template, Text::localized)
    }

    /// Replaces each `{name}` in one pass, so that a value that happens to
    /// contain braces is never filled in turn.
    fn render(&self, template: String, nested: fn(&Text) -> String) -> String {
        let mut out = String::with_capacity(template.len() + 16 * self.args.len());
        let mut rest = template.as_str();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let arg = after.find('}').and_then(|close| {
                let name = &after[..close];
                self.args.iter().find(|(n, _)| *n == name).map(|(_, value)| (close, value))
            });
            match arg {
                Some((close, value)) => {
                    match value {
                        Arg::Plain(text) => out.push_str(text),
                        Arg::Text(text) => out.push_str(&nested(text)),
                    }
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// The msgid of a text that is not translated ([`Text::from`] a `String`).
const VERBATIM: &str = "{value}";

/// The longest text [`Text::from_wire`] takes, in bytes of its wire form.
pub const MAX_WIRE_BYTES: usize = 8192;
/// The deepest nesting of sentences [`Text::from_wire`] takes (a list of
/// a few failures nests each in the next).
const MAX_WIRE_DEPTH: usize = 16;
/// The most placeholders one sentence of the wire may fill.
const MAX_WIRE_ARGS: usize = 16;

impl Text {
    /// True where nothing of this text can be translated (it came from a
    /// `String`: a name from the machine, a kernel's message).
    pub fn is_verbatim(&self) -> bool {
        self.msgid == VERBATIM
    }

    /// The whole text as JSON, for a reader who translates it:
    /// `{"id": msgid, "plural": [form, n], "args": [[name, value], ...]}`,
    /// where a value is a string or a nested text ("plural" only where
    /// there is one). docs/dbus-api.md, "Errors".
    pub fn to_wire(&self) -> String {
        self.wire_value().to_string()
    }

    fn wire_value(&self) -> serde_json::Value {
        use serde_json::{json, Value};
        let args: Vec<Value> = self
            .args
            .iter()
            .map(|(name, value)| match value {
                Arg::Plain(text) => json!([name, text]),
                Arg::Text(text) => json!([name, text.wire_value()]),
            })
            .collect();
        let mut value = json!({ "id": self.msgid, "args": args });
        if let Some((form, n)) = &self.plural {
            value["plural"] = json!([form, n]);
        }
        value
    }

    /// The text [`Text::to_wire`] wrote; `None` for anything else, or for
    /// more than [`MAX_WIRE_BYTES`], 16 levels of nesting or 16 placeholders
    /// in one sentence.
    pub fn from_wire(wire: &str) -> Option<Text> {
        if wire.len() > MAX_WIRE_BYTES {
            return None;
        }
        Text::from_wire_value(&serde_json::from_str(wire).ok()?, 0)
    }

    fn from_wire_value(value: &serde_json::Value, depth: usize) -> Option<Text> {
        if depth >= MAX_WIRE_DEPTH {
            return None;
        }
        let object = value.as_object()?;
        if object.keys().any(|key| !["id", "args", "plural"].contains(&key.as_str())) {
            return None;
        }
        let msgid = object.get("id")?.as_str()?.to_owned();
        let plural = match object.get("plural") {
            None => None,
            Some(plural) => match plural.as_array()?.as_slice() {
                [form, n] => Some((Cow::Owned(form.as_str()?.to_owned()), n.as_u64()?)),
                _ => return None,
            },
        };
        let wire_args = object.get("args")?.as_array()?;
        if wire_args.len() > MAX_WIRE_ARGS {
            return None;
        }
        let mut args = Vec::with_capacity(wire_args.len());
        for arg in wire_args {
            let [name, value] = arg.as_array()?.as_slice() else { return None };
            let value = match value {
                serde_json::Value::String(text) => Arg::Plain(text.clone()),
                nested => Arg::Text(Text::from_wire_value(nested, depth + 1)?),
            };
            args.push((Cow::Owned(name.as_str()?.to_owned()), value));
        }
        Some(Text { msgid: Cow::Owned(msgid), plural, args })
    }
}

impl From<String> for Text {
    /// A text that is not translated (a name from the machine or a file).
    fn from(value: String) -> Text {
        // Not a msgid: nothing for xgettext to find.
        Text { msgid: Cow::Borrowed(VERBATIM), plural: None, args: vec![(Cow::Borrowed("value"), Arg::Plain(value))] }
    }
}

impl std::fmt::Display for Text {
    /// English, as in logs and D-Bus errors; [`Text::localized`] for people.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english())
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.english())
    }
}

/// `value` with `digits` decimals as the person's locale writes numbers
/// (LC_NUMERIC, set by [`init`]): "80.3" in English, "80,3" in German,
/// with the locale's thousands separator ("1,234.5", "1.234,5"). The C
/// library's printf does it, from the system's locale data.
pub fn decimal(value: f64, digits: usize) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    // The printf formats, one per number of decimals (the window formats
    // a figure per CPU on every tick: no allocation for the format).
    const FORMATS: [&std::ffi::CStr; 10] =
        [c"%'.0f", c"%'.1f", c"%'.2f", c"%'.3f", c"%'.4f", c"%'.5f", c"%'.6f", c"%'.7f", c"%'.8f", c"%'.9f"];
    let format = FORMATS[digits.min(9)];
    let mut buffer = [0u8; 512];
    // SAFETY: the buffer's length is passed; the format takes one double,
    // which is what is passed.
    let written = unsafe { libc::snprintf(buffer.as_mut_ptr().cast(), buffer.len(), format.as_ptr(), value) };
    match usize::try_from(written).ok().filter(|n| *n < buffer.len()) {
        Some(n) => String::from_utf8_lossy(&buffer[..n]).into_owned(),
        None => format!("{value:.digits$}"),
    }
}

/// A percentage as the locale writes it, with one decimal: "7.0%", in
/// German "7,0 %" (a no-break space, in the catalogue); `signed` puts "+"
/// before gains.
pub fn percent(value: f64, signed: bool) -> String {
    percent_to(value, 1, signed)
}

/// [`percent`] with `digits` decimals.
pub fn percent_to(value: f64, digits: usize, signed: bool) -> String {
    let number = decimal(value, digits);
    let number = if signed && value >= 0.0 && !number.starts_with('-') { format!("+{number}") } else { number };
    // Translators: a percentage; {} is the number. Write it as your
    // language does ("{} %" in German and French), with a no-break space
    // (U+00A0), so that a line never ends between the number and the %.
    i18n_f("{}%", &[&number])
}

/// Sets up the text domain for the running program. `localedir` is where
/// the compiled catalogues live (`<prefix>/share/locale`).
pub fn init(localedir: &str) {
    use gettextrs::{bind_textdomain_codeset, bindtextdomain, setlocale, textdomain, LocaleCategory};
    // SAFETY: called once at start-up, before any other thread exists, as
    // setlocale(3) requires.
    unsafe {
        setlocale(LocaleCategory::LcAll, "");
    }
    // A missing catalogue is not an error: the English strings are used.
    let _ = bindtextdomain(DOMAIN, localedir);
    let _ = bind_textdomain_codeset(DOMAIN, "UTF-8");
    let _ = textdomain(DOMAIN);
}

#[cfg(test)]
mod tests {
    // Imported under another name, so that xgettext does not take these
    // test sentences for strings to translate.
    use super::{fill, i18n_text as text};

    #[test]
    fn texts_fill_named_placeholders_in_english() {
        let yes = text("yes");
        let line = text("HWP: {hwp} · CPUs: {count}").arg_text("hwp", yes).arg("count", 8);
        assert_eq!(line.english(), "HWP: yes · CPUs: 8");
        assert_eq!(serde_json::to_string(&line).unwrap(), "\"HWP: yes · CPUs: 8\"");
        assert_eq!(super::Text::from("{count} stays".to_owned()).english(), "{count} stays");
        let nested = text("{a} and {b}").arg("a", "{b}").arg("b", 2);
        assert_eq!(nested.english(), "{b} and 2");
    }

    #[test]
    fn texts_cross_the_wire_whole_and_bounded() {
        let inner = super::i18n_plural("{n} CPU", "{n} CPUs", 3).arg("n", 3);
        let whole = text("writing {what} failed: {why}").arg_text("what", inner).arg("why", "EBUSY \"x\"");
        let back = super::Text::from_wire(&whole.to_wire()).expect("its own wire form");
        assert_eq!(back, whole);
        assert_eq!(back.english(), "writing 3 CPUs failed: EBUSY \"x\"");
        assert!(!back.is_verbatim());
        assert!(super::Text::from("a name".to_owned()).is_verbatim());
        // Anything else, or too much, is no text.
        for bad in [
            "",
            "[]",
            "{\"id\": 3, \"args\": []}",
            "{\"id\": \"x\"}",
            "{\"id\": \"x\", \"args\": [[\"a\"]]}",
            "{\"id\": \"x\", \"args\": [], \"more\": 1}",
            "{\"id\": \"x\", \"args\": [], \"plural\": [\"y\", -1]}",
        ] {
            assert_eq!(super::Text::from_wire(bad), None, "{bad}");
        }
        let mut deep = text("{a}").arg("a", 1);
        for _ in 0..16 {
            deep = text("{a}").arg_text("a", deep);
        }
        assert_eq!(super::Text::from_wire(&deep.to_wire()), None);
        let many = (0..17).fold(text("x"), |t, _| t.arg("a", 1));
        assert_eq!(super::Text::from_wire(&many.to_wire()), None);
        let long = text("x").arg("a", "y".repeat(super::MAX_WIRE_BYTES));
        assert_eq!(super::Text::from_wire(&long.to_wire()), None);
    }

    #[test]
    fn numbers_follow_the_locale_and_say_their_sign() {
        // The tests run in the C locale: a point, no grouping.
        assert_eq!(super::decimal(80.25, 1), "80.2");
        assert_eq!(super::decimal(1234.5, 2), "1234.50");
        assert_eq!(super::decimal(f64::NAN, 1), "NaN");
        assert_eq!(super::percent(7.04, true), "+7.0%");
        assert_eq!(super::percent(-1.96, true), "-2.0%");
        assert_eq!(super::percent(-0.01, true), "-0.0%");
        assert_eq!(super::percent(5.0, false), "5.0%");
    }

    #[test]
    fn fills_placeholders_in_order() {
        assert_eq!(fill("CPU {} is {}", &[&3, &"offline"]), "CPU 3 is offline");
        assert_eq!(fill("no args {}", &[]), "no args {}");
        assert_eq!(fill("plain", &[&1]), "plain");
    }
}
