//! An event as the hub hands it out: the event itself and its wire forms, each
//! encoded at most once however many subscribers receive it.
//!
//! The hub queues one `Arc<`[`Published`]`>` per event into every matching
//! subscriber's queue. The first subscriber of a wire format to need the bytes
//! encodes them (JSON text for the WebSocket, protobuf for gRPC); every other one
//! gets a clone of the same reference-counted buffer. The buffers are plain bytes:
//! the edge frames them (a WebSocket text frame borrows the JSON's buffer). Each encoding is counted in
//! `terrain_event_encodings_total{format}`, so one event costs one encoding per
//! format in use, not one per subscriber.

use std::{
    fmt,
    ops::Deref,
    sync::{Arc, OnceLock},
};

use bytes::Bytes;

use super::Event;
use crate::metrics::Metrics;

/// A wire format an event is encoded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// The WebSocket's JSON text frame.
    Json,
    /// gRPC's protobuf `Event`.
    Protobuf,
}

impl WireFormat {
    /// The `format` label of `terrain_event_encodings_total`.
    pub fn as_str(self) -> &'static str {
        match self {
            WireFormat::Json => "json",
            WireFormat::Protobuf => "protobuf",
        }
    }
}

/// One published event and its lazily encoded, shared wire forms.
pub struct Published {
    event: Event,
    /// The JSON text (UTF-8, as made from a `String`), or why it could not be
    /// serialised.
    json: OnceLock<Result<Bytes, String>>,
    /// The JSON text framed as a whole WebSocket text frame, for transports that
    /// write frames themselves (made from `json`, not counted as an encoding).
    frame: OnceLock<Result<Bytes, String>>,
    protobuf: OnceLock<Bytes>,
    metrics: Arc<Metrics>,
}

impl Published {
    /// `event`, not yet encoded; encodings are counted in `metrics`.
    pub fn new(event: Event, metrics: Arc<Metrics>) -> Self {
        Published {
            event,
            json: OnceLock::new(),
            frame: OnceLock::new(),
            protobuf: OnceLock::new(),
            metrics,
        }
    }

    /// The event.
    pub fn event(&self) -> &Event {
        &self.event
    }

    /// The JSON text: `encode` runs once, for the first caller; every caller gets
    /// the same bytes (UTF-8: they are the `String` it made).
    pub fn json(
        &self,
        encode: impl FnOnce(&Event) -> Result<String, String>,
    ) -> Result<Bytes, String> {
        self.json
            .get_or_init(|| {
                self.metrics.event_encoded(WireFormat::Json.as_str());
                encode(&self.event).map(Bytes::from)
            })
            .clone()
    }

    /// The JSON text's whole WebSocket frame: `frame` runs once, for the first
    /// caller; every caller gets the same bytes.
    pub fn frame(&self, frame: impl FnOnce() -> Result<Bytes, String>) -> Result<&Bytes, &str> {
        self.frame
            .get_or_init(frame)
            .as_ref()
            .map_err(String::as_str)
    }

    /// The protobuf message: `encode` runs once, for the first caller; every caller
    /// gets the same bytes.
    pub fn protobuf(&self, encode: impl FnOnce(&Event) -> Vec<u8>) -> Bytes {
        self.protobuf
            .get_or_init(|| {
                self.metrics.event_encoded(WireFormat::Protobuf.as_str());
                Bytes::from(encode(&self.event))
            })
            .clone()
    }
}

impl Deref for Published {
    type Target = Event;

    fn deref(&self) -> &Event {
        &self.event
    }
}

impl PartialEq for Published {
    /// Equal when the events are: the encodings follow from them.
    fn eq(&self, other: &Self) -> bool {
        self.event == other.event
    }
}

impl fmt::Debug for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Published")
            .field("event", &self.event)
            .field("json", &self.json.get().is_some())
            .field("frame", &self.frame.get().is_some())
            .field("protobuf", &self.protobuf.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn published(metrics: &Arc<Metrics>) -> Arc<Published> {
        let event = super::super::sample_event(3, vec![(0, 0)]);
        Arc::new(Published::new(event, Arc::clone(metrics)))
    }

    fn count(metrics: &Metrics, format: &str) -> String {
        let line = format!("terrain_event_encodings_total{{format=\"{format}\"}} ");
        metrics
            .render()
            .lines()
            .find_map(|l| l.strip_prefix(&line).map(str::to_string))
            .unwrap_or_else(|| "0".into())
    }

    #[test]
    fn a_thousand_readers_share_one_encoding_per_format() {
        let metrics = Arc::new(Metrics::new().unwrap());
        let p = published(&metrics);
        let mut calls = (0, 0);
        let mut texts = Vec::new();
        let mut bins = Vec::new();
        for _ in 0..1000 {
            texts.push(
                p.json(|e| {
                    calls.0 += 1;
                    Ok(format!("{{\"revision\":{}}}", e.revision))
                })
                .unwrap(),
            );
            bins.push(p.protobuf(|e| {
                calls.1 += 1;
                vec![e.revision as u8]
            }));
        }
        assert_eq!(calls, (1, 1));
        assert!(texts.iter().all(|t| t == "{\"revision\":3}"));
        // The same buffers, not copies of them.
        assert!(texts.iter().all(|t| t.as_ptr() == texts[0].as_ptr()));
        assert!(bins.iter().all(|b| b.as_ptr() == bins[0].as_ptr()));
        assert_eq!(count(&metrics, "json"), "1");
        assert_eq!(count(&metrics, "protobuf"), "1");
        let other = published(&metrics);
        assert_eq!(p, other, "equal by event, whatever is encoded");
        other.json(|_| Err("refused".into())).unwrap_err();
        assert_eq!(count(&metrics, "json"), "2");
    }
}
