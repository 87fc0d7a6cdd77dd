//! How to get the helper where it is missing, in the words that fit how
//! this Gearshift was installed: from a source tree, `./build-aux/run`;
//! from a distribution's package, the `gearshift-helper` package and that
//! distribution's command for it (the README's table of packages).

use std::path::{Path, PathBuf};

use crate::i18n::{gettext, i18n_text};

/// The helper's package, as every package of Gearshift names it.
pub const HELPER_PACKAGE: &str = "gearshift-helper";

/// Where this Gearshift runs from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A build in a source tree (its directory).
    SourceTree(PathBuf),
    /// An installed copy: the distribution's command that installs the
    /// helper's package, where the distribution is one Gearshift packages
    /// for.
    Installed(Option<String>),
}

/// The source tree `exe` was built in: the first ancestor with
/// `build-aux/run` and `Cargo.toml`.
pub fn source_tree_of(exe: &Path) -> Option<PathBuf> {
    exe.ancestors()
        .skip(1)
        .find(|dir| dir.join("build-aux/run").is_file() && dir.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// The command that installs the helper's package on the distribution
/// `os_release` (the text of `/etc/os-release`) describes.
pub fn package_command(os_release: &str) -> Option<String> {
    let field = |key: &str| {
        os_release
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
            .map(|v| v.trim().trim_matches('"').to_ascii_lowercase())
            .unwrap_or_default()
    };
    let ids = format!("{} {}", field("ID"), field("ID_LIKE"));
    let words: Vec<&str> = ids.split_whitespace().collect();
    let any = |names: &[&str]| words.iter().any(|w| names.contains(w));
    let tool = if any(&["debian", "ubuntu"]) {
        "sudo apt install"
    } else if any(&["fedora", "rhel", "centos"]) {
        "sudo dnf install"
    } else if any(&["arch"]) {
        "sudo pacman -S"
    } else {
        return None;
    };
    Some(format!("{tool} {HELPER_PACKAGE}"))
}

/// Where distributions put the programs only Gearshift starts, under the
/// prefix: `libexec` (Debian, Ubuntu, Fedora, openSUSE) or `lib` (Arch).
const PRIVATE_DIRS: &[&str] = &["libexec", "lib"];

/// The private program `name` installed beside `exe`: `exe` lies in
/// `<prefix>/bin`, `<prefix>/libexec` or `<prefix>/lib`, and `name` in one
/// of the last two. The same binaries then serve every layout (one build,
/// packaged for Debian, RPM distributions and Arch: docs/packaging.md),
/// where a path baked in at build time would need a build per layout.
pub fn installed_beside(exe: &Path, name: &str) -> Option<PathBuf> {
    let prefix = exe.parent()?.parent()?;
    PRIVATE_DIRS.iter().map(|dir| prefix.join(dir).join(name)).find(|path| path.is_file())
}

/// The private program `name` (gearshift-window) installed beside the
/// running program, if it is.
pub fn private_program(name: &str) -> Option<PathBuf> {
    installed_beside(&std::env::current_exe().ok()?, name)
}

/// Where the helper is installed: beside this program, else (a build in a
/// source tree, or a prefix of its own such as /usr/local) where the
/// distribution's package put it.
pub fn helper_program() -> Option<PathBuf> {
    const NAME: &str = "gearshift-helper";
    private_program(NAME).or_else(|| installed_beside(Path::new("/usr/bin/gearshift"), NAME))
}

/// The source tree the running program was built in, if it runs from one.
/// Found from where the program lies, not compiled in: a path compiled in
/// would make each build depend on its directory (docs/packaging.md,
/// "Reproducible builds").
pub fn source_tree() -> Option<PathBuf> {
    std::env::current_exe().ok().as_deref().and_then(source_tree_of)
}

/// Where the running program comes from.
pub fn origin() -> Origin {
    if let Some(tree) = source_tree() {
        return Origin::SourceTree(tree);
    }
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    Origin::Installed(package_command(&release))
}

impl Origin {
    /// The command that installs the helper, where one does it.
    pub fn command(&self) -> Option<String> {
        match self {
            Origin::SourceTree(_) => Some("./build-aux/run".to_owned()),
            Origin::Installed(command) => command.clone(),
        }
    }

    /// What to do, in a sentence.
    pub fn advice(&self) -> String {
        match self {
            // Translators: {dir} is the source tree Gearshift was built in.
            Origin::SourceTree(dir) => i18n_text("Install it with ./build-aux/run in {dir} (it asks for sudo).")
                .arg("dir", dir.display())
                .localized(),
            // Translators: {command} installs the helper's package, such as "sudo apt install gearshift-helper".
            Origin::Installed(Some(command)) => {
                i18n_text("Install the gearshift-helper package: {command}").arg("command", command).localized()
            }
            Origin::Installed(None) => {
                gettext("Install the gearshift-helper package of your distribution (it holds the part that changes the CPU's settings).")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distribution_names_its_own_command() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
        assert_eq!(package_command(debian).as_deref(), Some("sudo apt install gearshift-helper"));
        let mint = "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n";
        assert_eq!(package_command(mint).as_deref(), Some("sudo apt install gearshift-helper"));
        let fedora = "ID=fedora\nVERSION_ID=41\n";
        assert_eq!(package_command(fedora).as_deref(), Some("sudo dnf install gearshift-helper"));
        let endeavour = "ID=endeavouros\nID_LIKE=arch\n";
        assert_eq!(package_command(endeavour).as_deref(), Some("sudo pacman -S gearshift-helper"));
        assert_eq!(package_command("ID=gentoo\n"), None);
        assert_eq!(package_command(""), None);
    }

    #[test]
    fn a_private_program_is_found_beside_the_command_in_either_layout() {
        let root = tempfile::tempdir().unwrap();
        let usr = root.path().join("usr");
        for dir in ["bin", "libexec", "lib"] {
            std::fs::create_dir_all(usr.join(dir)).unwrap();
        }
        let cli = usr.join("bin/gearshift");
        std::fs::write(&cli, "").unwrap();
        assert_eq!(installed_beside(&cli, "gearshift-window"), None, "nothing installed yet");
        // Arch: /usr/lib.
        std::fs::write(usr.join("lib/gearshift-window"), "").unwrap();
        assert_eq!(installed_beside(&cli, "gearshift-window"), Some(usr.join("lib/gearshift-window")));
        // Debian and Fedora: /usr/libexec, asked first.
        std::fs::write(usr.join("libexec/gearshift-window"), "").unwrap();
        assert_eq!(installed_beside(&cli, "gearshift-window"), Some(usr.join("libexec/gearshift-window")));
        // From the window (in libexec), the helper beside it.
        std::fs::write(usr.join("libexec/gearshift-helper"), "").unwrap();
        let window = usr.join("libexec/gearshift-window");
        assert_eq!(installed_beside(&window, "gearshift-helper"), Some(usr.join("libexec/gearshift-helper")));
        // A directory of that name is no program.
        std::fs::create_dir_all(usr.join("lib/gearshift-agent")).unwrap();
        assert_eq!(installed_beside(&cli, "gearshift-agent"), None);
        assert_eq!(installed_beside(Path::new("/gearshift"), "gearshift-window"), None, "no prefix above /");
    }

    #[test]
    fn a_build_in_a_source_tree_is_told_apart_from_an_installed_copy() {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(source_tree_of(&tree.join("target/debug/gearshift")).as_deref(), Some(tree));
        assert_eq!(source_tree_of(Path::new("/usr/libexec/gearshift-window")), None);
        let words = Origin::Installed(Some("sudo apt install gearshift-helper".into())).advice();
        assert!(words.contains("sudo apt install gearshift-helper") && !words.contains("build-aux"), "{words}");
    }
}
