//! The names of the core's closed choices (generator kind, overlap rule, layout pattern,
//! spoke rule), defined once with their enum by a macro (`named_enum!`): `ALL`, `as_str`,
//! [`Display`](std::fmt::Display), [`FromStr`](std::str::FromStr) and serde all use the
//! same table, so configuration files, flags, the API's display names and the SDK spell
//! them alike. A name that is not one of them is refused with [`UnknownName`], which
//! lists the accepted ones.

use std::fmt;

/// A name that is none of a closed set's, e.g. `unknown pattern "spiral", expected one
/// of: grid, zigzag, rings, chaotic`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {got:?}, expected one of: {}", Names(.expected))]
pub struct UnknownName {
    /// What was being named (`generator`, `overlap rule`, ...).
    pub what: &'static str,
    /// The name given.
    pub got: String,
    /// The accepted names, in documentation order.
    pub expected: &'static [&'static str],
}

/// `a, b, c`.
struct Names<'a>(&'a [&'static str]);

impl fmt::Display for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

/// Gives a fieldless enum its names: `ALL`, `NAMES`, `as_str`, `Display`, `FromStr`
/// (refusing with [`UnknownName`]) and serde (as the name string).
macro_rules! named_enum {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in documentation order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// Every name, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name used in configuration, on the wire and in the SDK.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err($crate::names::UnknownName {
                        what: $what,
                        got: s.to_string(),
                        expected: Self::NAMES,
                    }),
                }
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct NameVisitor;

                impl ::serde::de::Visitor<'_> for NameVisitor {
                    type Value = $ty;

                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        f.write_str("a string")
                    }

                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$ty, E> {
                        v.parse().map_err(E::custom)
                    }
                }

                d.deserialize_str(NameVisitor)
            }
        }
    };
}

pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    //! The macro on an enum of its own; the crate's enums check their names where they
    //! are defined (generator kind, overlap rule, layout pattern and spoke rule).

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Shade {
        Light,
        Dark,
    }

    named_enum!(Shade, "shade", {
        Light => "light",
        Dark => "dark",
    });

    #[test]
    fn names_round_trip_and_refusals_list_them() {
        assert_eq!(Shade::ALL, [Shade::Light, Shade::Dark]);
        assert_eq!(Shade::NAMES, ["light", "dark"]);
        for &s in Shade::ALL {
            assert_eq!(s.as_str().parse::<Shade>(), Ok(s));
            assert_eq!(s.to_string(), s.as_str());
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(serde_json::from_str::<Shade>(&json).unwrap(), s);
        }
        assert_eq!(
            "grey".parse::<Shade>().unwrap_err().to_string(),
            "unknown shade \"grey\", expected one of: light, dark"
        );
        let err = serde_json::from_str::<Shade>("\"grey\"").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown shade \"grey\", expected one of: light, dark"),
            "{err}"
        );
    }
}
