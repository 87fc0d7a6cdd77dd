//! Which profile should be applied right now: the person's (or the
//! AC/battery policy's) choice, unless an application holds a profile.
//!
//! Pure logic, tested without a bus. The rules (power-profiles-daemon's,
//! plus Gearshift's own, see docs/dbus-api.md):
//! - a hold is `performance` or `power-saver`; when both are held,
//!   power-saver wins;
//! - a manual switch cancels every hold;
//! - while a hold lasts, a power-source change moves the base choice but
//!   does not override the hold; when the last hold ends, the base returns;
//! - a manual switch while the policy is on lasts until the next
//!   power-source change.

use crate::core::profile::BuiltinProfile;
use crate::i18n::{i18n_text, Text};

use super::state::AutoPolicy;

/// The most bytes of a hold's reason or application id.
pub const MAX_HOLD_TEXT: usize = 256;
/// The most holds one bus connection may have at once.
pub const MAX_HOLDS_PER_CALLER: usize = 16;
/// The most holds one user may have at once, over all their connections
/// (root's are not counted).
pub const MAX_HOLDS_PER_USER: usize = 16;
/// The most holds at once, from everyone.
pub const MAX_HOLDS: usize = 64;

/// Who asks for a hold: the bus connection (the hold ends when it leaves)
/// and its user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The unique bus name.
    pub name: String,
    /// The user, as the bus daemon knows it.
    pub uid: u32,
}

impl Holder {
    /// `name` of user `uid`.
    pub fn new(name: &str, uid: u32) -> Holder {
        Holder { name: name.to_owned(), uid }
    }
}

/// A profile held by an application through the PowerProfiles API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hold {
    /// The cookie returned to the holder.
    pub cookie: u32,
    /// `Performance` or `Power`.
    pub profile: BuiltinProfile,
    /// Why, in the holder's words.
    pub reason: String,
    /// Who, in the holder's words.
    pub application_id: String,
    /// The holder's unique bus name (the hold ends when it leaves).
    pub holder: String,
    /// The holder's user (holds are counted per user too).
    pub uid: u32,
    /// The interface it was asked through, where `ProfileReleased` goes.
    pub origin: &'static str,
    /// GameMode's (`HoldForGameMode`): GameMode sets the CPU itself while
    /// it holds, so nothing is written and nothing it wrote is set back.
    pub hands_off: bool,
}

/// A measurement in progress (`BeginMeasurement`): the efficiency lab
/// switches profiles one after another, and when it ends (also when the
/// measuring client is killed and leaves the bus, or the helper restarts
/// without it) the latest choice of everyone else is put back
/// (docs/dbus-api.md, "Measurements"). The lab's own switches change no
/// choice: they last as long as the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The cookie returned to the client.
    pub cookie: u32,
    /// The client's unique bus name.
    pub holder: String,
    /// The profile the lab runs now (its `SetProfile`, or someone else's
    /// switch since); `None` before its first switch when no profile was
    /// in effect.
    pub current: Option<String>,
    /// How often something else changed what the machine runs while the
    /// lease lasts (another client, a firmware hotkey, values changed
    /// outside): the lab counts a run during which this grew as disturbed.
    pub disturbances: u32,
    /// When it began, in seconds since the epoch (its time limit counts
    /// from then, across a restart of the helper).
    pub began: u64,
}

/// Holds, the measurement lease and the power source.
#[derive(Debug, Default, Clone)]
pub struct Control {
    /// Active holds, oldest first.
    pub holds: Vec<Hold>,
    /// The measurement in progress, if one is.
    pub lease: Option<Lease>,
    /// From UPower, once known.
    pub on_battery: Option<bool>,
    /// The battery's level in percent (UPower's display device), once known.
    pub battery_level: Option<f64>,
}

impl Control {
    /// The profile to apply: the strongest hold, else `base`.
    pub fn effective(&self, base: Option<&str>) -> Option<String> {
        match crate::core::profile::winning_hold(self.holds.iter().map(|h| h.profile)) {
            Some(held) => Some(held.id().to_owned()),
            None => base.map(str::to_owned),
        }
    }

    /// Why a new hold may not be added, if it may not: the texts are too
    /// long, or the caller, its user or everyone holds too many already.
    pub fn refuse_hold(&self, reason: &str, application_id: &str, holder: &Holder) -> Option<Text> {
        if let Some(why) = refuse_hold_texts(reason, application_id) {
            return Some(why);
        }
        if self.holds.iter().filter(|h| h.holder == holder.name).count() >= MAX_HOLDS_PER_CALLER {
            return Some(
                i18n_text("this caller holds {count} profiles already, the most one caller may")
                    .arg("count", MAX_HOLDS_PER_CALLER),
            );
        }
        // Root is not counted per user: the cap keeps one user from taking
        // every place, and root may end every hold anyway.
        if holder.uid != 0 && self.holds.iter().filter(|h| h.uid == holder.uid).count() >= MAX_HOLDS_PER_USER {
            return Some(
                i18n_text("this user holds {count} profiles already, the most one user may")
                    .arg("count", MAX_HOLDS_PER_USER),
            );
        }
        if self.holds.len() >= MAX_HOLDS {
            return Some(
                i18n_text("{count} profiles are held already, the most the helper keeps").arg("count", MAX_HOLDS),
            );
        }
        None
    }

    /// The hold with `cookie`, if any.
    pub fn find(&self, cookie: u32) -> Option<&Hold> {
        self.holds.iter().find(|h| h.cookie == cookie)
    }

    /// Adds a hold; returns its cookie: random, never 0, and no other
    /// hold's or measurement's (so that nobody can guess another's).
    pub fn hold(
        &mut self,
        profile: BuiltinProfile,
        (reason, application_id): (&str, &str),
        holder: &Holder,
        origin: &'static str,
    ) -> u32 {
        let cookie = self.fresh_cookie();
        self.holds.push(Hold {
            cookie,
            profile,
            reason: reason.to_owned(),
            application_id: application_id.to_owned(),
            holder: holder.name.clone(),
            uid: holder.uid,
            origin,
            hands_off: false,
        });
        cookie
    }

    /// The hold `cookie` is GameMode's: hands off the CPU while it lasts.
    pub fn mark_hands_off(&mut self, cookie: u32) {
        self.holds.iter_mut().filter(|h| h.cookie == cookie).for_each(|h| h.hands_off = true);
    }

    /// True while GameMode holds (a hands-off hold lasts).
    pub fn hands_off(&self) -> bool {
        self.holds.iter().any(|h| h.hands_off)
    }

    /// A random cookie no live hold or measurement has.
    fn fresh_cookie(&self) -> u32 {
        loop {
            let cookie = random_u32();
            let taken = self.holds.iter().any(|h| h.cookie == cookie)
                || self.lease.as_ref().is_some_and(|l| l.cookie == cookie);
            if cookie != 0 && !taken {
                return cookie;
            }
        }
    }

    /// Ends one hold; `None` when there is no such cookie.
    pub fn release(&mut self, cookie: u32) -> Option<Hold> {
        let index = self.holds.iter().position(|h| h.cookie == cookie)?;
        Some(self.holds.remove(index))
    }

    /// Ends every hold of a holder that left the bus; returns their cookies.
    pub fn release_holder(&mut self, holder: &str) -> Vec<u32> {
        let gone: Vec<u32> = self.holds.iter().filter(|h| h.holder == holder).map(|h| h.cookie).collect();
        self.holds.retain(|h| h.holder != holder);
        gone
    }

    /// Ends every hold (a manual switch); returns their cookies.
    pub fn release_all(&mut self) -> Vec<Hold> {
        self.holds.drain(..).collect()
    }

    /// Starts a measurement for `holder` at `began` (seconds since the
    /// epoch), with `current` in effect. One at a time: two would switch
    /// profiles under each other.
    ///
    /// # Errors
    /// Another client measures already (its bus name is said).
    pub fn begin_lease(&mut self, holder: &str, current: Option<String>, began: u64) -> Result<u32, Text> {
        if let Some(lease) = &self.lease {
            return Err(i18n_text(
                "another measurement is running (by {holder}); one at a time, or their profile switches would mix",
            )
            .arg("holder", &lease.holder));
        }
        let cookie = self.fresh_cookie();
        self.lease = Some(Lease { cookie, holder: holder.to_owned(), current, disturbances: 0, began });
        Ok(cookie)
    }

    /// Takes up a lease the helper kept across a restart (its client is
    /// still on the bus), with its cookie.
    pub fn resume_lease(&mut self, cookie: u32, holder: &str, began: u64) {
        self.lease = Some(Lease { cookie, holder: holder.to_owned(), current: None, disturbances: 0, began });
    }

    /// Ends the measurement with `cookie`, asked by `caller`: only its own
    /// client may end it early.
    ///
    /// # Errors
    /// The caller has no measurement with that cookie (said the same way
    /// whether another client's has it or none does).
    pub fn end_lease(&mut self, cookie: u32, caller: &str) -> Result<Lease, Text> {
        self.lease
            .take_if(|lease| lease.cookie == cookie && lease.holder == caller)
            .ok_or_else(|| not_your_lease(cookie))
    }

    /// The measurement `cookie` of `caller`, to read.
    ///
    /// # Errors
    /// As [`Control::end_lease`].
    pub fn own_lease(&self, cookie: u32, caller: &str) -> Result<&Lease, Text> {
        match &self.lease {
            Some(lease) if lease.cookie == cookie && lease.holder == caller => Ok(lease),
            _ => Err(not_your_lease(cookie)),
        }
    }

    /// Ends the measurement `cookie` if it still runs (it took too long).
    pub fn expire_lease(&mut self, cookie: u32) -> Option<Lease> {
        self.lease.take_if(|lease| lease.cookie == cookie)
    }

    /// Ends the measurement of a client that left the bus.
    pub fn lease_holder_gone(&mut self, holder: &str) -> Option<Lease> {
        self.lease.take_if(|lease| lease.holder == holder)
    }

    /// Something other than the measuring client changed what the machine
    /// runs: a run under way is disturbed.
    pub fn disturb(&mut self) {
        if let Some(lease) = self.lease.as_mut() {
            lease.disturbances = lease.disturbances.saturating_add(1);
        }
    }
}

fn not_your_lease(cookie: u32) -> Text {
    i18n_text("this caller has no measurement with the cookie {cookie}").arg("cookie", cookie)
}

/// Four random bytes from the kernel (`getrandom`, which blocks only
/// before the pool is ready at early boot).
fn random_u32() -> u32 {
    let mut bytes = [0u8; 4];
    // SAFETY: getrandom writes at most the 4 bytes of the buffer we own.
    let read = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if read == 4 {
        return u32::from_ne_bytes(bytes);
    }
    // Never seen on Linux 3.17 and later; the cookie is still unique.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    nanos.rotate_left(13) ^ std::process::id()
}

/// Why a hold's reason or application id is refused, if it is: too long.
pub fn refuse_hold_texts(reason: &str, application_id: &str) -> Option<Text> {
    let refusal = |what: Text, text: &str| {
        (text.len() > MAX_HOLD_TEXT).then(|| {
            i18n_text("the {what} is {length} bytes long; at most {limit} are accepted")
                .arg_text("what", what)
                .arg("length", text.len())
                .arg("limit", MAX_HOLD_TEXT)
        })
    };
    refusal(i18n_text("reason"), reason).or_else(|| refusal(i18n_text("application id"), application_id))
}

/// The policy's profile for a power source (AC when it is not known).
pub fn policy_choice(auto: &AutoPolicy, on_battery: Option<bool>) -> &str {
    if on_battery == Some(true) {
        &auto.on_battery
    } else {
        &auto.on_ac
    }
}

#[cfg(test)]
mod tests;
