//! The JSON and binary request bodies: the first input byte picks zone bodies and zone
//! files ([`terrain_fuzz::zones`]), batch bodies and their content type
//! ([`terrain_fuzz::batch`]), or viewer bodies and WebSocket area messages
//! ([`terrain_fuzz::messages`]); the next byte picks within the group.

#![no_main]

use libfuzzer_sys::fuzz_target;
use terrain_fuzz::{batch, messages, select, zones};

fuzz_target!(|data: &[u8]| {
    let Some((choice, rest)) = select(data, 3) else {
        return;
    };
    match choice {
        0 => zones::run(rest),
        1 => batch::run(rest),
        _ => messages::run(rest),
    }
});
