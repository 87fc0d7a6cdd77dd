//! Translation helpers over gettext (domain `gearshift`).
//!
//! Strings are marked with [`gettext`] (re-exported) so that `xgettext`
//! finds them; [`i18n_f`] fills `{}` placeholders after translation, so that
//! translators can move them within the sentence.

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
    use super::fill;

    #[test]
    fn fills_placeholders_in_order() {
        assert_eq!(fill("CPU {} is {}", &[&3, &"offline"]), "CPU 3 is offline");
        assert_eq!(fill("no args {}", &[]), "no args {}");
        assert_eq!(fill("plain", &[&1]), "plain");
    }
}
