//! The flat-zone reads both surfaces share: get, list (a page at a time), and the
//! zone deciding the height at a point, under the world's read lock. Mutations are the
//! registry's ([`crate::world::registry`]: `World::register_doc`, `World::unregister`).
//!
//! # Pages
//!
//! A zone list is answered a page at a time (AIP-158: `page_size`, `page_token`,
//! `next_page_token`; HTTP `pageSize`, `pageToken`, `nextPageToken`). A page holds at
//! most `pageSize` zones ([`DEFAULT_PAGE_SIZE`] when 0 or absent, at most
//! [`MAX_PAGE_SIZE`]) and stops before its zones would take more than [`PAGE_BYTES`]
//! in the surface's encoding (protobuf or JSON), always holding at least one zone: a
//! page is never much larger than 1 MiB, whatever the tile masks (the largest legal
//! zone takes 1.7 MB of JSON, 0.7 MB of protobuf).
//!
//! Every page of a listing is of the revision its first page answered: the token
//! ([`PageToken`]) names the world, its epoch, that revision and the registration
//! revision of the last zone delivered (zones are listed by ascending registration
//! revision, each revision distinct). A later page of an older revision is rebuilt
//! from the world's history (`asof_revisions`, [`World::zones_as_of`]), as as-of
//! queries are; one the history no longer reaches, or of another epoch, is refused
//! (`FAILED_PRECONDITION`, field `pageToken`): the client lists again from the first
//! page. A token of a revision this server has not applied yet (another replica's)
//! is `ABORTED`: retrying reaches it.

use terrain_core::{FlatZone, quote::Quoted};

use super::{QueryEngine, QueryError, check_coordinate};
use crate::world::{World, asof::AsOfError};

/// A registered zone with the revision that registered (or last replaced) it, every
/// zone of a world and one zone (or none), each with the world's revision: the shared
/// model's.
pub use terrain_model::{ZoneAnswer, ZoneEntry, ZoneList};

/// Zones a page holds when the request names no page size.
pub const DEFAULT_PAGE_SIZE: usize = 500;

/// The largest page size a request may name (field `pageSize` beyond it).
pub const MAX_PAGE_SIZE: usize = 1000;

/// A page stops before its zones would take more than this many bytes encoded.
pub const PAGE_BYTES: usize = 1 << 20;

/// Where a listing continues: the world and epoch it lists, the revision its first
/// page answered and the registration revision of the last zone delivered. Written as
/// `z1.{revision}.{after}.{epoch}.{world}`; clients treat it as opaque.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageToken {
    pub world: String,
    pub epoch: String,
    pub revision: u64,
    pub after: u64,
}

/// The longest token read: a longer one is malformed whatever it holds.
const MAX_TOKEN_LEN: usize = 256;

impl PageToken {
    /// The token as sent to clients.
    pub fn encode(&self) -> String {
        format!(
            "z1.{}.{}.{}.{}",
            self.revision, self.after, self.epoch, self.world
        )
    }

    /// Reads a token [`encode`](Self::encode) wrote; `None` for anything else.
    pub fn decode(token: &str) -> Option<Self> {
        if token.len() > MAX_TOKEN_LEN {
            return None;
        }
        let mut parts = token.splitn(5, '.');
        let digits = |s: &str| -> Option<u64> {
            let canonical = !s.is_empty()
                && s.bytes().all(|b| b.is_ascii_digit())
                && (s == "0" || !s.starts_with('0'));
            canonical.then(|| s.parse().ok()).flatten()
        };
        (parts.next()? == "z1").then_some(())?;
        let revision = digits(parts.next()?)?;
        let after = digits(parts.next()?)?;
        let epoch = parts.next()?;
        let world = parts.next()?;
        let epoch_ok = epoch.bytes().all(|b| b.is_ascii_hexdigit());
        let world_ok = !world.is_empty()
            && world
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
        (epoch_ok && world_ok && after <= revision).then(|| PageToken {
            world: world.to_string(),
            epoch: epoch.to_string(),
            revision,
            after,
        })
    }
}

/// One page of a zone list, each zone in the surface's form.
#[derive(Debug, Clone, PartialEq)]
pub struct ZonePage<T> {
    /// The page's zones, in registration order.
    pub zones: Vec<T>,
    /// The listing's revision (every page's the first page's).
    pub revision: u64,
    /// The epoch of the world's history `revision` belongs to.
    pub epoch: String,
    /// The next page's token; empty on the last page.
    pub next_page_token: String,
}

/// The page size a request asks for (0: the default), or why it is refused.
fn page_size(size: i64) -> Result<usize, QueryError> {
    match usize::try_from(size) {
        Ok(0) => Ok(DEFAULT_PAGE_SIZE),
        Ok(n) if n <= MAX_PAGE_SIZE => Ok(n),
        _ if size < 0 => Err(QueryError::invalid(
            "pageSize",
            format!("must not be negative (got {size})"),
        )),
        _ => Err(QueryError::invalid(
            "pageSize",
            format!(
                "must be at most {MAX_PAGE_SIZE} (got {size}); 0 is the default, {DEFAULT_PAGE_SIZE}"
            ),
        )),
    }
}

/// Fills a page from `zones` (in registration order): the zones registered after
/// `after`, at most `size`, stopping before the page would take more than
/// [`PAGE_BYTES`] (never before its first zone). `item` gives each zone's surface
/// form and its encoded size. Answers the page and, when zones remain, the
/// registration revision of its last zone.
fn fill<'a, T>(
    zones: impl Iterator<Item = (&'a FlatZone, u64)>,
    after: u64,
    size: usize,
    mut item: impl FnMut(&ZoneEntry) -> (T, usize),
) -> (Vec<T>, Option<u64>) {
    let mut page = Vec::new();
    let mut bytes = 0usize;
    let mut last = after;
    for (zone, revision) in zones.filter(|&(_, r)| r > after) {
        if page.len() == size {
            return (page, Some(last));
        }
        let entry = ZoneEntry {
            zone: zone.clone(),
            revision,
        };
        let (form, len) = item(&entry);
        if !page.is_empty() && bytes.saturating_add(len) > PAGE_BYTES {
            return (page, Some(last));
        }
        bytes = bytes.saturating_add(len);
        page.push(form);
        last = revision;
    }
    (page, None)
}

impl QueryEngine {
    /// Zone `id` of `world`; `NOT_FOUND` (field `id`) if absent.
    pub async fn zone(&self, world: &World, id: &str) -> Result<ZoneAnswer, QueryError> {
        let state = world.snapshot();
        let zones = state.zones();
        let entry = zones
            .get(id)
            .zip(zones.revision_of(id))
            .map(|(zone, revision)| ZoneEntry {
                zone: zone.clone(),
                revision,
            })
            .ok_or_else(|| QueryError::UnknownZone {
                world: world.id().to_string(),
                id: id.to_string(),
            })?;
        Ok(ZoneAnswer {
            zone: Some(entry),
            revision: state.revision(),
        })
    }

    /// One page of `world`'s zones: `size` zones at most (0: [`DEFAULT_PAGE_SIZE`];
    /// field `pageSize`), from the start (`token` empty) or where `token` says (field
    /// `pageToken`), each in the surface's form with its encoded size (`item`).
    pub async fn zone_page<T>(
        &self,
        world: &World,
        size: i64,
        token: &str,
        item: impl FnMut(&ZoneEntry) -> (T, usize),
    ) -> Result<ZonePage<T>, QueryError> {
        let size = page_size(size)?;
        let epoch = world.epoch().unwrap_or_default().to_string();
        let page = |revision: u64, (zones, last): (Vec<T>, Option<u64>)| ZonePage {
            zones,
            revision,
            epoch: epoch.clone(),
            next_page_token: last
                .map(|after| {
                    PageToken {
                        world: world.id().to_string(),
                        epoch: epoch.clone(),
                        revision,
                        after,
                    }
                    .encode()
                })
                .unwrap_or_default(),
        };
        if token.is_empty() {
            let state = world.snapshot();
            let revision = state.revision();
            return Ok(page(revision, fill(state.zones().iter(), 0, size, item)));
        }
        let token = checked_token(world, &epoch, token)?;
        let state = world.snapshot();
        if token.revision == state.revision() {
            let filled = fill(state.zones().iter(), token.after, size, item);
            return Ok(page(token.revision, filled));
        }
        let zones = world
            .zones_as_of(token.revision)
            .map_err(|e| stale(world, &token, e))?;
        let filled = fill(zones.iter().map(|(z, r)| (z, *r)), token.after, size, item);
        Ok(page(token.revision, filled))
    }

    /// The zone that decides the height at `(x, z)`, if any.
    pub async fn zone_at(&self, world: &World, x: f64, z: f64) -> Result<ZoneAnswer, QueryError> {
        let max = world.max_coordinate();
        check_coordinate(x, max).map_err(|reason| QueryError::invalid("x", reason))?;
        check_coordinate(z, max).map_err(|reason| QueryError::invalid("z", reason))?;
        let state = world.snapshot();
        let zones = state.zones();
        let zone = zones.zone_at(x, z).map(|(zone, _)| ZoneEntry {
            zone: zone.clone(),
            revision: zones.revision_of(&zone.id).unwrap_or_default(),
        });
        Ok(ZoneAnswer {
            zone,
            revision: state.revision(),
        })
    }
}

/// `token` read for `world` (whose epoch is `epoch`), or why it is refused.
fn checked_token(world: &World, epoch: &str, token: &str) -> Result<PageToken, QueryError> {
    let decoded = PageToken::decode(token).ok_or_else(|| {
        QueryError::invalid(
            "pageToken",
            format!(
                "{} is not a page token this server wrote: send the nextPageToken of the \
                 previous page as it is, or none for the first page",
                Quoted(token)
            ),
        )
    })?;
    if decoded.world != world.id() {
        return Err(QueryError::invalid(
            "pageToken",
            format!(
                "the token lists world {:?}, not {:?}: send it with the world it came from",
                decoded.world,
                world.id()
            ),
        ));
    }
    if decoded.epoch != epoch {
        return Err(QueryError::StalePage(format!(
            "pageToken: the token lists another history of world {:?} (epoch {:?}; the \
             world's is now {epoch:?}, restored or restarted empty): list again from the \
             first page, without a page token",
            world.id(),
            decoded.epoch
        )));
    }
    Ok(decoded)
}

/// Why the revision of `token` cannot be listed.
fn stale(world: &World, token: &PageToken, err: AsOfError) -> QueryError {
    match err {
        AsOfError::Ahead { current, .. } => QueryError::PageAhead(format!(
            "pageToken: the listing is of revision {}, which this server has not applied \
             yet (it is at {current}): retry",
            token.revision
        )),
        AsOfError::Gone { oldest, window, .. } => QueryError::StalePage(format!(
            "pageToken: the listing's revision {} is no longer held for world {:?} (pages \
             of revisions {oldest} to the current one are, asof_revisions = {window}): list \
             again from the first page, without a page token",
            token.revision,
            world.id()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::square_zone;

    #[test]
    fn tokens_read_back_and_nothing_else_reads() {
        let token = PageToken {
            world: "main".into(),
            epoch: "00ff00ff00ff00ff".into(),
            revision: 42,
            after: 7,
        };
        assert_eq!(token.encode(), "z1.42.7.00ff00ff00ff00ff.main");
        assert_eq!(PageToken::decode(&token.encode()), Some(token));
        for bad in [
            "",
            "z1",
            "z2.42.7.00ff00ff00ff00ff.main",
            "z1.42.7.00ff00ff00ff00ff.",
            "z1.42.43.00ff00ff00ff00ff.main",
            "z1.042.7.00ff00ff00ff00ff.main",
            "z1.+42.7.00ff00ff00ff00ff.main",
            "z1.42.7.0xff.main",
            "z1.42.7.00ff.ma.in",
            "z1.18446744073709551616.7.00ff.main",
            "not a token",
        ] {
            assert_eq!(PageToken::decode(bad), None, "{bad}");
        }
        assert_eq!(PageToken::decode(&"z1.1.0.ab.".repeat(40)), None);
    }

    #[test]
    fn page_sizes_are_checked_by_name() {
        assert_eq!(page_size(0).unwrap(), DEFAULT_PAGE_SIZE);
        assert_eq!(page_size(1).unwrap(), 1);
        assert_eq!(page_size(MAX_PAGE_SIZE as i64).unwrap(), MAX_PAGE_SIZE);
        for bad in [-1, MAX_PAGE_SIZE as i64 + 1, i64::MAX, i64::MIN] {
            let err = page_size(bad).unwrap_err();
            assert_eq!(crate::error::ServiceError::field(&err), Some("pageSize"));
            assert!(err.to_string().starts_with("pageSize: "), "{err}");
        }
    }

    fn zones(n: u64) -> Vec<(FlatZone, u64)> {
        (1..=n)
            .map(|r| {
                let zone = FlatZone {
                    id: format!("z{r}"),
                    ..square_zone(r as f64)
                };
                (zone, r * 2)
            })
            .collect()
    }

    fn pages(
        zones: &[(FlatZone, u64)],
        size: usize,
        bytes: impl Fn(u64) -> usize,
    ) -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let (page, last) = fill(zones.iter().map(|(z, r)| (z, *r)), after, size, |e| {
                (e.revision, bytes(e.revision))
            });
            out.push(page);
            match last {
                Some(last) => after = last,
                None => return out,
            }
        }
    }

    #[test]
    fn a_page_stops_at_its_count_or_before_its_byte_budget() {
        let zones = zones(10);
        // By count: 4 + 4 + 2, every zone once, in order.
        let by_count = pages(&zones, 4, |_| 10);
        assert_eq!(
            by_count,
            [vec![2, 4, 6, 8], vec![10, 12, 14, 16], vec![18, 20]]
        );
        // By bytes: a third of the budget each, so three a page.
        let by_bytes = pages(&zones, 1000, |_| PAGE_BYTES / 3);
        assert_eq!(
            by_bytes.iter().map(Vec::len).collect::<Vec<_>>(),
            [3, 3, 3, 1]
        );
        assert!(
            by_bytes
                .iter()
                .all(|p| p.len() * (PAGE_BYTES / 3) <= PAGE_BYTES)
        );
        // A zone over the budget alone still makes a page, alone.
        let huge = pages(&zones, 1000, |r| if r == 6 { PAGE_BYTES * 2 } else { 1 });
        assert_eq!(huge, [vec![2, 4], vec![6], vec![8, 10, 12, 14, 16, 18, 20]]);
        // Exactly full: the next page starts with the zone that would overflow it.
        let exact = pages(&zones, 1000, |_| PAGE_BYTES / 2);
        assert_eq!(
            exact.iter().map(Vec::len).collect::<Vec<_>>(),
            [2, 2, 2, 2, 2]
        );
        // An empty list is one empty page.
        assert_eq!(pages(&[], 10, |_| 1), [Vec::<u64>::new()]);
    }
}
