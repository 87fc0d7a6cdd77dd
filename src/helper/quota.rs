//! Places counted per key and in all, given back when dropped: the
//! requests of a bus connection in the helper (`request::Calls`), the
//! polkit checks of a user (`authorize`).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use super::lock;

/// Which limit a [`Quota::take`] met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// The key has all its places.
    Key,
    /// Everyone together has all the places.
    All,
}

/// At most `per_key` places per key and `total` in all.
#[derive(Debug, Clone)]
pub struct Quota<K: Hash + Eq> {
    per_key: usize,
    total: usize,
    taken: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Hash + Eq + Clone> Quota<K> {
    /// No place taken yet.
    pub fn new(per_key: usize, total: usize) -> Self {
        Self { per_key, total, taken: Arc::default() }
    }

    /// Takes a place for `key`.
    ///
    /// # Errors
    /// Which limit it met.
    pub fn take(&self, key: &K) -> Result<Place<K>, Full> {
        let mut taken = lock(&self.taken);
        let mine = taken.get(key).copied().unwrap_or(0);
        if mine >= self.per_key {
            return Err(Full::Key);
        }
        if taken.values().sum::<usize>() >= self.total {
            return Err(Full::All);
        }
        taken.insert(key.clone(), mine + 1);
        Ok(Place { key: key.clone(), taken: Arc::clone(&self.taken) })
    }

    /// The places taken now.
    pub fn taken(&self) -> usize {
        lock(&self.taken).values().sum()
    }
}

/// A place of a [`Quota`], given back when dropped (also when the call
/// that took it is abandoned half way).
#[derive(Debug)]
pub struct Place<K: Hash + Eq> {
    key: K,
    taken: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Hash + Eq> Drop for Place<K> {
    fn drop(&mut self) {
        let mut taken = lock(&self.taken);
        if let Some(count) = taken.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                taken.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_has_its_places_and_everyone_the_total_and_all_come_back() {
        let quota = Quota::new(2, 3);
        let a = [quota.take(&"a").unwrap(), quota.take(&"a").unwrap()];
        assert_eq!(quota.take(&"a").unwrap_err(), Full::Key);
        let b = quota.take(&"b").unwrap();
        assert_eq!(quota.take(&"c").unwrap_err(), Full::All);
        assert_eq!(quota.taken(), 3);
        drop(a);
        drop(b);
        assert_eq!(quota.taken(), 0);
        assert!(lock(&quota.taken).is_empty(), "no key is kept once its places are back");
    }
}
