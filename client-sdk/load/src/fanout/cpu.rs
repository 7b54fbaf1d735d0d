//! A process's CPU time from `/proc/PID/stat`: `utime` (its own code) and `stime`
//! (the kernel's, on its behalf: system calls, and on loopback the receiving side's
//! TCP processing of what it sends), in clock ticks.

use anyhow::Context as _;

/// CPU time used so far by one process (all its threads, past and present).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cpu {
    user: u64,
    system: u64,
}

impl Cpu {
    /// Process `pid`'s CPU time.
    pub fn of(pid: u32) -> anyhow::Result<Cpu> {
        read(&format!("/proc/{pid}/stat"))
    }

    /// This process's CPU time.
    pub fn of_self() -> anyhow::Result<Cpu> {
        read("/proc/self/stat")
    }

    /// Seconds of CPU used between `before` and this reading: (user, system).
    pub fn seconds_since(&self, before: &Cpu) -> (f64, f64) {
        let seconds = |now: u64, then: u64| {
            now.saturating_sub(then) as f64 / rustix::param::clock_ticks_per_second() as f64
        };
        (
            seconds(self.user, before.user),
            seconds(self.system, before.system),
        )
    }
}

fn read(path: &str) -> anyhow::Result<Cpu> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    parse(&text).with_context(|| format!("{path}: no utime and stime fields"))
}

/// `utime` and `stime`: fields 14 and 15 of the stat line, counted after the command
/// name, which is in parentheses and may itself hold spaces and parentheses.
fn parse(stat: &str) -> Option<Cpu> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let user = fields.next()?.parse().ok()?;
    let system = fields.next()?.parse().ok()?;
    Some(Cpu { user, system })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utime_and_stime_follow_the_command_name() {
        let stat = "4242 (terrain (x) srv) S 1 4242 4242 0 -1 4194560 9518 0 0 0 \
                    1234 56 0 0 20 0 9 0 1796 1 2 3";
        assert_eq!(
            parse(stat),
            Some(Cpu {
                user: 1234,
                system: 56
            })
        );
        assert_eq!(parse("4242 (x) S 1 2"), None);
        assert_eq!(parse("no parenthesis"), None);
        let hz = rustix::param::clock_ticks_per_second();
        let before = Cpu {
            user: 100,
            system: 7,
        };
        let after = Cpu {
            user: 100 + hz,
            system: 7 + 2 * hz,
        };
        assert_eq!(after.seconds_since(&before), (1.0, 2.0));
        // This process has a stat line; its CPU time never goes back.
        let a = Cpu::of_self().unwrap();
        let b = Cpu::of(std::process::id()).unwrap();
        assert!(b.user >= a.user && b.system >= a.system);
    }
}
