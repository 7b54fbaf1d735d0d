//! Locking shared by the server's modules.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// `mutex`, locked even if a thread panicked while holding it: for data updated in
/// single steps (a map insert, a queue push), which a panic leaves consistent, so
/// one panicked request does not take every later user of the lock down with it.
pub fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
