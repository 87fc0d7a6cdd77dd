//! A profile's id, checked once where it enters (the bus, the command
//! line, a settings file): one of the four built-in profiles, or a custom
//! profile's id of the form [`is_valid_id`] allows. The views and the
//! messages between them carry this type, not text.

use serde::{Serialize, Serializer};

use super::custom::is_valid_id;
use super::profile::BuiltinProfile;

/// A built-in profile, or a custom profile's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProfileId {
    /// One of the four built-in profiles.
    Builtin(BuiltinProfile),
    /// A custom profile's id (well-formed; whether it exists is the
    /// helper's to say).
    Custom(String),
}

impl ProfileId {
    /// The profile `id` names: a built-in one, else a well-formed custom
    /// id; `None` for "" (no profile) and for anything malformed.
    pub fn parse(id: &str) -> Option<ProfileId> {
        match BuiltinProfile::from_id(id) {
            Some(builtin) => Some(ProfileId::Builtin(builtin)),
            None => is_valid_id(id).then(|| ProfileId::Custom(id.to_owned())),
        }
    }

    /// The id as the helper and the files spell it.
    pub fn as_str(&self) -> &str {
        match self {
            ProfileId::Builtin(builtin) => builtin.id(),
            ProfileId::Custom(id) => id,
        }
    }

    /// The built-in profile, where it is one.
    pub fn builtin(&self) -> Option<BuiltinProfile> {
        match self {
            ProfileId::Builtin(builtin) => Some(*builtin),
            ProfileId::Custom(_) => None,
        }
    }
}

impl From<BuiltinProfile> for ProfileId {
    fn from(builtin: BuiltinProfile) -> ProfileId {
        ProfileId::Builtin(builtin)
    }
}

impl std::fmt::Display for ProfileId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ProfileId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// Serialized as the id itself ("balance_performance", "quiet").
impl Serialize for ProfileId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_checked_once_and_spelled_as_it_came() {
        assert_eq!(ProfileId::parse("power"), Some(ProfileId::Builtin(BuiltinProfile::Power)));
        assert_eq!(ProfileId::parse("büro").map(|p| p.to_string()).as_deref(), Some("büro"));
        for refused in ["", "../etc/passwd", "Quiet", "a b", "power\n", &"x".repeat(33)] {
            assert_eq!(ProfileId::parse(refused), None, "{refused:?}");
        }
        assert_eq!(serde_json::to_string(&ProfileId::from(BuiltinProfile::Performance)).unwrap(), "\"performance\"");
        assert!(ProfileId::parse("quiet").unwrap() == *"quiet");
    }
}
