//! Locking shared by the server's modules.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `mutex`, locked even if a thread panicked while holding it: for data updated in
/// single steps (a map insert, a queue push), which a panic leaves consistent, so
/// one panicked request does not take every later user of the lock down with it.
pub fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `lock` read-locked, even if a thread panicked while holding it (see [`locked`]).
pub fn read_locked<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// `lock` write-locked, even if a thread panicked while holding it (see [`locked`]).
pub fn write_locked<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
