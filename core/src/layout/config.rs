//! The layout configuration of a world, its validation, and the query bounds.

use serde::{Deserialize, Serialize};

/// Largest |chunk coordinate| a query may touch: 2^26. It keeps every product of the
/// chunk seed mix below 2^53, where the exact mix equals the JavaScript one.
pub const MAX_CHUNK_COORD: i64 = 1 << 26;

/// Most chunks one [`super::layout_in`] query may cover (a 256 x 256 square).
pub const MAX_QUERY_CHUNKS: u64 = 1 << 16;

/// Most cells one [`super::classify_grid`] query may produce.
pub const MAX_GRID_CELLS: u64 = 1 << 22;

/// How hubs are placed inside a chunk (the seed's `genHubsForPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// One hub per chunk, centred with +-8% jitter.
    Grid,
    /// One hub per chunk, left of centre on even rows and right on odd rows.
    Zigzag,
    /// A centre hub plus 1-3 concentric rings of smaller hubs.
    Rings,
    /// 1-4 Poisson-disc-like random hubs.
    Chaotic,
}

crate::names::named_enum!(Pattern, "pattern", {
    Grid => "grid",
    Zigzag => "zigzag",
    Rings => "rings",
    Chaotic => "chaotic",
});

/// How hubs are joined by spokes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpokeRule {
    /// Each pair of orthogonally adjacent chunks is joined by its nearest hub pair.
    Grid,
    /// The maximal non-crossing graph per region, shortest candidates first.
    Planar,
}

crate::names::named_enum!(SpokeRule, "spoke rule", {
    Grid => "grid",
    Planar => "planar",
});

impl SpokeRule {
    /// The rule the seed pairs with `pattern`: grid spokes for the grid pattern,
    /// planar spokes for the others.
    pub fn default_for(pattern: Pattern) -> Self {
        match pattern {
            Pattern::Grid => Self::Grid,
            Pattern::Zigzag | Pattern::Rings | Pattern::Chaotic => Self::Planar,
        }
    }
}

/// The layout layer of one world. Every output is a pure function of this and the
/// queried point or area.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayoutConfig {
    /// Hub placement inside each chunk.
    pub pattern: Pattern,
    /// How hubs are joined.
    pub spokes: SpokeRule,
    /// Side of a square chunk, metres. Every hub size and offset scales with it.
    pub chunk_size: f64,
    /// Side of a zone-classification cell, metres; at most `chunk_size`.
    pub cell_size: f64,
    /// The world seed mixed into every chunk PRNG.
    pub seed: u32,
}

/// Why a layout configuration or query was refused. Every variant names the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LayoutError {
    #[error("{field}: must be a finite number")]
    NotFinite { field: &'static str },
    #[error("{field}: must be greater than 0 (got {value})")]
    NotPositive { field: &'static str, value: f64 },
    #[error("cell_size: must be at most chunk_size {chunk_size} (got {cell_size})")]
    CellTooLarge { cell_size: f64, chunk_size: f64 },
    #[error("bounds: min must not exceed max on each axis")]
    InvertedBounds,
    #[error("bounds: reaches chunk coordinate beyond +-{MAX_CHUNK_COORD}")]
    OutOfWorld,
    #[error("bounds: covers {count} {what}, more than the limit {max}")]
    TooLarge {
        what: &'static str,
        count: u64,
        max: u64,
    },
}

impl LayoutConfig {
    /// A configuration with the seed's default spoke rule for `pattern`, validated.
    pub fn new(
        pattern: Pattern,
        chunk_size: f64,
        cell_size: f64,
        seed: u32,
    ) -> Result<Self, LayoutError> {
        let cfg = Self {
            pattern,
            spokes: SpokeRule::default_for(pattern),
            chunk_size,
            cell_size,
            seed,
        };
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks the sizes: both finite and positive, cells no larger than chunks.
    pub fn validate(&self) -> Result<(), LayoutError> {
        positive("chunk_size", self.chunk_size)?;
        positive("cell_size", self.cell_size)?;
        if self.cell_size > self.chunk_size {
            return Err(LayoutError::CellTooLarge {
                cell_size: self.cell_size,
                chunk_size: self.chunk_size,
            });
        }
        Ok(())
    }

    /// The chunk holding coordinate `v` (chunks are half-open: `[c * size, (c + 1) * size)`).
    pub fn chunk_of(&self, v: f64) -> Result<i64, LayoutError> {
        let c = libm::floor(v / self.chunk_size);
        if !c.is_finite() || c.abs() > MAX_CHUNK_COORD as f64 {
            return Err(LayoutError::OutOfWorld);
        }
        Ok(c as i64)
    }
}

fn positive(field: &'static str, value: f64) -> Result<(), LayoutError> {
    if !value.is_finite() {
        return Err(LayoutError::NotFinite { field });
    }
    if value <= 0.0 {
        return Err(LayoutError::NotPositive { field, value });
    }
    Ok(())
}

/// An axis-aligned query area in world metres, closed on every side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Area {
    /// Smallest x.
    pub min_x: f64,
    /// Smallest z.
    pub min_z: f64,
    /// Largest x.
    pub max_x: f64,
    /// Largest z.
    pub max_z: f64,
}

impl Area {
    /// The area `(min_x, min_z, max_x, max_z)`, validated: finite and not inverted.
    pub fn new(min_x: f64, min_z: f64, max_x: f64, max_z: f64) -> Result<Self, LayoutError> {
        if ![min_x, min_z, max_x, max_z].iter().all(|v| v.is_finite()) {
            return Err(LayoutError::NotFinite { field: "bounds" });
        }
        if min_x > max_x || min_z > max_z {
            return Err(LayoutError::InvertedBounds);
        }
        Ok(Self {
            min_x,
            min_z,
            max_x,
            max_z,
        })
    }

    /// The inclusive chunk ranges `(cx0, cz0, cx1, cz1)` the area touches, bounded by
    /// [`MAX_QUERY_CHUNKS`].
    pub(crate) fn chunks(&self, cfg: &LayoutConfig) -> Result<ChunkRect, LayoutError> {
        let rect = ChunkRect {
            cx0: cfg.chunk_of(self.min_x)?,
            cz0: cfg.chunk_of(self.min_z)?,
            cx1: cfg.chunk_of(self.max_x)?,
            cz1: cfg.chunk_of(self.max_z)?,
        };
        let count = (rect.cx1 - rect.cx0 + 1) as u64 * (rect.cz1 - rect.cz0 + 1) as u64;
        if count > MAX_QUERY_CHUNKS {
            return Err(LayoutError::TooLarge {
                what: "chunks",
                count,
                max: MAX_QUERY_CHUNKS,
            });
        }
        Ok(rect)
    }
}

/// An inclusive rectangle of chunk coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkRect {
    pub cx0: i64,
    pub cz0: i64,
    pub cx1: i64,
    pub cz1: i64,
}

impl ChunkRect {
    /// Whether chunk `(cx, cz)` is inside.
    pub fn contains(&self, cx: i64, cz: i64) -> bool {
        (self.cx0..=self.cx1).contains(&cx) && (self.cz0..=self.cz1).contains(&cz)
    }

    /// Every chunk inside, row by row.
    pub fn iter(self) -> impl Iterator<Item = (i64, i64)> {
        (self.cz0..=self.cz1).flat_map(move |cz| (self.cx0..=self.cx1).map(move |cx| (cx, cz)))
    }
}

#[cfg(test)]
mod tests {
    use super::{Pattern, SpokeRule};

    #[test]
    fn names_round_trip_and_refusals_list_them() {
        for &p in Pattern::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.as_str()));
            assert_eq!(serde_json::from_str::<Pattern>(&json).unwrap(), p);
        }
        assert_eq!(
            "curvy".parse::<SpokeRule>().unwrap_err().to_string(),
            "unknown spoke rule \"curvy\", expected one of: grid, planar"
        );
        let err = serde_json::from_str::<Pattern>("\"spiral\"").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "unknown pattern \"spiral\", expected one of: grid, zigzag, rings, chaotic"
            ),
            "{err}"
        );
    }
}
