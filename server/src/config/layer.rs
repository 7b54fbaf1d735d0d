//! [`Layer`]: one source of settings laid over a lower one, key by key, and
//! [`layered!`], which declares a settings struct together with its `Layer` impl so
//! that no key is listed a second time to merge it.
//!
//! The sources are layered lowest first: the defaults ([`super::Settings::defaults`]),
//! the file, then the environment and flags (clap lays those over the file itself,
//! [`super::Cli::layer_over`]). Each key takes the value of the highest source that
//! gives it.

/// A source of settings that can be laid over a lower one.
pub trait Layer {
    /// `self` over `lower`: every key `self` gives replaces `lower`'s.
    fn over(self, lower: Self) -> Self;
}

/// A single key: the upper value if given, else the lower.
impl<T> Layer for Option<T> {
    fn over(self, lower: Self) -> Self {
        self.or(lower)
    }
}

/// Declares a struct of settings, every field a [`Layer`] (an `Option`, or a table
/// declared by this macro), and its `Layer` impl: each field laid over the lower's.
/// Attributes (serde, clap, docs) pass through unchanged.
macro_rules! layered {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_meta:meta])* $field_vis:vis $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$field_meta])* $field_vis $field: $ty, )*
        }

        impl $crate::config::layer::Layer for $name {
            fn over(self, lower: Self) -> Self {
                $name {
                    $( $field: $crate::config::layer::Layer::over(self.$field, lower.$field), )*
                }
            }
        }
    };
}

pub(crate) use layered;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Layer;
    use crate::config::{
        Config, LifecycleConfig, Settings, StoreSettings,
        store::{StoreConfig, StoreKind},
    };

    #[test]
    fn layers_give_each_key_the_highest_source_that_gives_it() {
        let lower = Settings {
            max_in_flight: Some(5),
            compute_nice: Some(1),
            store: StoreSettings {
                kind: Some(StoreKind::Nats),
                bucket: Some("low".into()),
                ..StoreSettings::default()
            },
            ..Settings::default()
        };
        let upper = Settings {
            max_in_flight: Some(7),
            cull_grace: Some(Duration::from_secs(9)),
            store: StoreSettings {
                bucket: Some("high".into()),
                ..StoreSettings::default()
            },
            ..Settings::default()
        };
        let s = upper.over(lower);
        assert_eq!(s.max_in_flight, Some(7), "the upper value wins");
        assert_eq!(
            s.compute_nice,
            Some(1),
            "the lower fills what the upper leaves"
        );
        assert_eq!(s.cull_grace, Some(Duration::from_secs(9)));
        assert_eq!(s.listen, None, "silent in both: still silent");
        // Tables merge key by key too.
        assert_eq!(s.store.kind, Some(StoreKind::Nats));
        assert_eq!(s.store.bucket.as_deref(), Some("high"));
        assert_eq!(s.store.url, None);
    }

    #[test]
    fn layers_over_the_defaults_resolve_to_the_default_config() {
        // Nothing given: every key at its default, none missing from the defaults layer.
        assert_eq!(
            Config::resolve(Settings::default()).unwrap(),
            Config::default()
        );
        assert_eq!(
            Config::resolve(Settings::defaults()).unwrap(),
            Config::default()
        );
        // One key given: only it moves.
        let given = Settings {
            viewer_ttl: Some(Duration::from_secs(3)),
            ..Settings::default()
        };
        let config = Config::resolve(given).unwrap();
        let lifecycle = LifecycleConfig {
            viewer_ttl: Duration::from_secs(3),
            ..LifecycleConfig::default()
        };
        assert_eq!(config.lifecycle, lifecycle);
        assert_eq!(config.store, StoreConfig::Embedded);
        assert_eq!(
            Config {
                lifecycle: LifecycleConfig::default(),
                ..config
            },
            Config::default()
        );
    }
}
