//! A bounded concurrent map for the layout's per-chunk caches: sharded read-write
//! locks over hash maps, evicting by CLOCK (second chance) when a shard outgrows its
//! share of the byte budget, and building each missing value once however many
//! threads ask for it at the same time.
//!
//! A hit costs one read lock, one hash and two atomic accesses (tens of nanoseconds),
//! which matters because every height query with a layout reads one entry; a
//! general-purpose cache with access-order bookkeeping cost about ten times that per
//! read here. Keys are Fx-hashed: a shard holds at most its budget's worth of entries
//! (hundreds), so even keys chosen to collide cost a short scan, not a denial of
//! service. Values are pure functions of their keys, so what is evicted and rebuilt
//! never changes an answer.

use std::collections::VecDeque;
use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use rustc_hash::{FxBuildHasher, FxHashMap};

/// Shards per cache: enough that two to a few dozen threads rarely meet on a lock.
const SHARDS: usize = 16;

/// A value being built or built. Builders of one key queue on `gate`, so only the
/// first builds; readers never touch `gate`.
#[derive(Debug)]
struct Cell<V> {
    value: OnceLock<V>,
    gate: Mutex<()>,
}

/// One entry with its weight and CLOCK reference bit.
#[derive(Debug)]
struct Slot<V> {
    cell: Arc<Cell<V>>,
    /// Bytes, counted once the value is built (0 before).
    weight: usize,
    /// Set by every hit, cleared when the clock hand passes: an entry is evicted only
    /// if nobody read it during a whole turn.
    hot: AtomicBool,
}

#[derive(Debug)]
struct Shard<K, V> {
    map: FxHashMap<K, Slot<V>>,
    /// The clock: keys in insertion order, the hand at the front.
    ring: VecDeque<K>,
    weight: usize,
}

impl<K: Copy + Eq + Hash, V> Shard<K, V> {
    /// Evicts cold entries other than `keep` until the shard fits in `budget` (or the
    /// clock has turned twice: each turn clears every bit, so two free all it can).
    fn make_room(&mut self, keep: &K, budget: usize) {
        let mut steps = 2 * self.ring.len();
        while self.weight > budget && steps > 0 {
            steps -= 1;
            let Some(k) = self.ring.pop_front() else {
                break;
            };
            let Some(slot) = self.map.get(&k) else {
                continue;
            };
            if k == *keep || slot.hot.swap(false, Ordering::Relaxed) {
                self.ring.push_back(k);
            } else if let Some(gone) = self.map.remove(&k) {
                self.weight -= gone.weight;
            }
        }
    }
}

/// A bounded map from `K` to cheaply cloned `V` (an `Arc`), safe to share.
#[derive(Debug)]
pub(crate) struct ClockCache<K, V> {
    shards: Box<[RwLock<Shard<K, V>>]>,
    /// Byte budget of each shard.
    budget: usize,
}

impl<K: Copy + Eq + Hash, V: Clone> ClockCache<K, V> {
    /// An empty cache holding about `bytes` in all (at least one entry per shard: the
    /// newest is kept even when it alone exceeds the shard's share).
    pub(crate) fn new(bytes: u64) -> Self {
        let shards = (0..SHARDS)
            .map(|_| {
                RwLock::new(Shard {
                    map: FxHashMap::default(),
                    ring: VecDeque::new(),
                    weight: 0,
                })
            })
            .collect();
        Self {
            shards,
            budget: usize::try_from(bytes / SHARDS as u64).unwrap_or(usize::MAX),
        }
    }

    fn shard(&self, key: &K) -> &RwLock<Shard<K, V>> {
        // The high bits of an Fx hash are its best mixed.
        &self.shards[(FxBuildHasher.hash_one(key) >> 60) as usize % SHARDS]
    }

    fn read(lock: &RwLock<Shard<K, V>>) -> RwLockReadGuard<'_, Shard<K, V>> {
        // No code panics while holding a guard; recover the data if one ever did.
        lock.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(lock: &RwLock<Shard<K, V>>) -> RwLockWriteGuard<'_, Shard<K, V>> {
        lock.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// `f` of the value of `key`, if built and cached, read in place (under the
    /// shard's read lock, so `f` must be short).
    pub(crate) fn with<R>(&self, key: &K, f: impl FnOnce(&V) -> R) -> Option<R> {
        let shard = Self::read(self.shard(key));
        let slot = shard.map.get(key)?;
        let value = slot.cell.value.get()?;
        slot.hot.store(true, Ordering::Relaxed);
        Some(f(value))
    }

    /// The value of `key`, if built and cached.
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.with(key, V::clone)
    }

    /// The value of `key`, built by `build` (and weighed by `weigh`) if missing, and
    /// whether this call built it. Concurrent callers for one missing key wait for the
    /// first one's build rather than repeat it. A failed build caches nothing.
    pub(crate) fn get_or_build<E>(
        &self,
        key: K,
        build: impl FnOnce() -> Result<V, E>,
        weigh: impl FnOnce(&V) -> usize,
    ) -> Result<(V, bool), E> {
        if let Some(v) = self.get(&key) {
            return Ok((v, false));
        }
        let cell = {
            let mut shard = Self::write(self.shard(&key));
            match shard.map.get(&key) {
                Some(slot) => Arc::clone(&slot.cell),
                None => {
                    let cell = Arc::new(Cell {
                        value: OnceLock::new(),
                        gate: Mutex::new(()),
                    });
                    shard.ring.push_back(key);
                    let slot = Slot {
                        cell: Arc::clone(&cell),
                        weight: 0,
                        hot: AtomicBool::new(false),
                    };
                    shard.map.insert(key, slot);
                    cell
                }
            }
        };
        let gate = cell.gate.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = cell.value.get() {
            return Ok((v.clone(), false));
        }
        let value = match build() {
            Ok(v) => v,
            Err(e) => {
                drop(gate);
                self.forget_empty(&key, &cell);
                return Err(e);
            }
        };
        let weight = weigh(&value);
        let value = cell.value.get_or_init(|| value).clone();
        drop(gate);
        let mut shard = Self::write(self.shard(&key));
        let budget = self.budget;
        // Evicted while building: the value is returned but not kept.
        if let Some(slot) = shard.map.get_mut(&key)
            && Arc::ptr_eq(&slot.cell, &cell)
        {
            slot.weight = weight;
            shard.weight += weight;
            shard.make_room(&key, budget);
        }
        Ok((value, true))
    }

    /// Removes `key` if it still holds `cell` and `cell` was never filled.
    fn forget_empty(&self, key: &K, cell: &Arc<Cell<V>>) {
        let mut shard = Self::write(self.shard(key));
        let ours = shard
            .map
            .get(key)
            .is_some_and(|s| Arc::ptr_eq(&s.cell, cell) && s.cell.value.get().is_none());
        if ours {
            shard.map.remove(key);
            shard.ring.retain(|k| k != key);
        }
    }

    /// Removes every entry whose key fails `keep`; returns the removed keys that held
    /// a built value.
    pub(crate) fn retain(&self, keep: impl Fn(&K) -> bool) -> Vec<K> {
        let mut removed = Vec::new();
        for lock in self.shards.iter() {
            let mut shard = Self::write(lock);
            let Shard { map, ring, weight } = &mut *shard;
            map.retain(|k, slot| {
                let kept = keep(k);
                if !kept {
                    *weight -= slot.weight;
                    if slot.cell.value.get().is_some() {
                        removed.push(*k);
                    }
                }
                kept
            });
            ring.retain(|k| map.contains_key(k));
        }
        removed
    }

    /// Every key holding a built value, in no particular order.
    pub(crate) fn keys(&self) -> Vec<K> {
        let mut keys = Vec::new();
        for lock in self.shards.iter() {
            let shard = Self::read(lock);
            let built = shard
                .map
                .iter()
                .filter(|(_, s)| s.cell.value.get().is_some());
            keys.extend(built.map(|(k, _)| *k));
        }
        keys
    }

    /// The number of built values cached.
    pub(crate) fn len(&self) -> usize {
        self.keys().len()
    }

    /// The total weight of the cached values, bytes.
    pub(crate) fn weight(&self) -> usize {
        self.shards.iter().map(|s| Self::read(s).weight).sum()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    type Cache = ClockCache<(i64, i64), u32>;

    fn put(cache: &Cache, key: (i64, i64), value: u32, weight: usize) -> (u32, bool) {
        cache
            .get_or_build(key, || Ok::<_, ()>(value), |_| weight)
            .expect("infallible build")
    }

    #[test]
    fn keeps_within_budget_and_gives_hot_entries_a_second_chance() {
        // 16 shards of 100 bytes: each shard holds at most ten 10-byte entries.
        let cache = Cache::new(1600);
        for i in 0..1000 {
            put(&cache, (i, 0), i as u32, 10);
            // Key (0, 0) is read after every insert, so it is never cold.
            assert_eq!(cache.get(&(0, 0)), Some(0), "after {i}");
        }
        assert!(cache.weight() <= 1600, "{}", cache.weight());
        assert_eq!(cache.weight(), 10 * cache.len());
        assert!(cache.len() >= 16, "shards hold entries: {}", cache.len());
        // A cached key is not rebuilt.
        assert_eq!(put(&cache, (0, 0), 99, 10), (0, false));
    }

    #[test]
    fn failed_builds_cache_nothing() {
        let cache = Cache::new(1 << 20);
        let err = cache.get_or_build((1, 1), || Err::<u32, _>("no"), |_| 4);
        assert_eq!(err, Err("no"));
        assert_eq!(cache.len(), 0);
        assert!(
            cache
                .shards
                .iter()
                .all(|s| ClockCache::read(s).map.is_empty())
        );
        assert_eq!(put(&cache, (1, 1), 7, 4), (7, true));
        assert_eq!(cache.weight(), 4);
    }

    #[test]
    fn concurrent_misses_build_once() {
        let cache = Cache::new(1 << 20);
        let builds = AtomicUsize::new(0);
        let got: Vec<u32> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        let build = || {
                            builds.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok::<_, ()>(42)
                        };
                        cache.get_or_build((5, 5), build, |_| 1).expect("build").0
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        });
        assert_eq!(got, vec![42; 8]);
        assert_eq!(builds.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn retain_removes_exactly_the_rejected_keys() {
        let cache = Cache::new(1 << 20);
        for i in 0..100 {
            put(&cache, (i, -i), i as u32, 8);
        }
        let mut removed = cache.retain(|k| k.0 % 3 == 0);
        removed.sort();
        let want: Vec<(i64, i64)> = (0..100).filter(|i| i % 3 != 0).map(|i| (i, -i)).collect();
        assert_eq!(removed, want);
        assert_eq!(cache.len(), 34);
        assert_eq!(cache.weight(), 34 * 8);
        assert_eq!(cache.get(&(3, -3)), Some(3));
        assert_eq!(cache.get(&(4, -4)), None);
        let mut keys = cache.keys();
        keys.sort();
        assert_eq!(keys.len(), 34);
        assert!(keys.iter().all(|k| k.0 % 3 == 0));
    }
}
