//! Echoing input in messages: [`Quoted`] writes a string as a quoted literal, cut to
//! its first [`SHOWN_CHARS`] characters with the full length appended when it is
//! longer, so a refusal of a megabyte of id is a short message (a gRPC status carries
//! its message in a trailer, which a long echo would push over the metadata limit).
//! Every message that echoes an id or a value the caller sent uses it. [`Num`] writes
//! a number the same way: exact, but never hundreds of digits (`1e300`, not a 1
//! followed by 300 zeros).

use std::fmt;

/// How many characters of an echoed string a message shows.
pub const SHOWN_CHARS: usize = 64;

/// `s` as a quoted literal (`"abc"`), or its first [`SHOWN_CHARS`] characters and
/// its length: `"aaaa…"…(1000000 bytes)`.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(pub &'a str);

/// The first [`SHOWN_CHARS`] characters of `s`, and its length in bytes when that is
/// not all of it.
fn shown(s: &str) -> (&str, Option<usize>) {
    match s.char_indices().nth(SHOWN_CHARS) {
        None => (s, None),
        Some((end, _)) => (&s[..end], Some(s.len())),
    }
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match shown(self.0) {
            (s, None) => write!(f, "{s:?}"),
            (head, Some(len)) => write!(f, "{head:?}…({len} bytes)"),
        }
    }
}

/// Like [`Quoted`] without the quotes, for a name inside a path
/// (`worlds[main].zones[0]`): the first [`SHOWN_CHARS`] characters and the length.
#[derive(Debug, Clone, Copy)]
pub struct Cut<'a>(pub &'a str);

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match shown(self.0) {
            (s, None) => f.write_str(s),
            (head, Some(len)) => write!(f, "{head}…({len} bytes)"),
        }
    }
}

/// An `f64` in a message: the shortest form that reads back to the same value, in
/// plain notation between 1e-5 and 1e16 (`1000000000`, `0.25`) and in scientific
/// notation outside (`1e300`, `3.7778931862957165e22`), so at most ~24 characters.
#[derive(Debug, Clone, Copy)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let a = v.abs();
        if !v.is_finite() || a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{v}")
        } else {
            write!(f, "{v:e}")
        }
    }
}

/// [`Quoted`] as a `String`.
pub fn quoted(s: &str) -> String {
    Quoted(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_strings_whole_long_ones_cut_with_their_length() {
        assert_eq!(quoted("main"), r#""main""#);
        assert_eq!(quoted(""), r#""""#);
        let exact = "a".repeat(SHOWN_CHARS);
        assert_eq!(quoted(&exact), format!("{exact:?}"));
        let long = "é".repeat(1_000_000);
        let text = quoted(&long);
        assert_eq!(
            text,
            format!("{:?}…(2000000 bytes)", "é".repeat(SHOWN_CHARS))
        );
        assert!(text.len() < 200, "{}", text.len());
        assert_eq!(Cut("main").to_string(), "main");
        for (v, text) in [
            (1e9, "1000000000"),
            (-0.25, "-0.25"),
            (0.0, "0"),
            (1e300, "1e300"),
            (1e308, "1e308"),
            (-1.5e-300, "-1.5e-300"),
            (3.777893186295716e22, "3.777893186295716e22"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(Num(v).to_string(), text, "{v:e}");
            if !v.is_nan() {
                let back: f64 = Num(v).to_string().parse().unwrap();
                assert_eq!(back.to_bits(), v.to_bits(), "{v:e} reads back");
            }
        }
        assert_eq!(
            Cut(&"x".repeat(100)).to_string(),
            format!("{}…(100 bytes)", "x".repeat(SHOWN_CHARS))
        );
    }
}
