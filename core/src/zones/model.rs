//! The flat-zone model: what a zone is, how it is validated, and how one zone
//! classifies a point (core, blend ring, or untouched).

use std::fmt;

use super::mask::TileMask;
use crate::quote::{Num, Quoted};

/// Largest accepted length of a zone id.
pub const MAX_ID_LEN: usize = 128;

/// The footprint of a zone's level core.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// `width` along X by `depth` along Z, centred on the zone centre.
    Rect { width: f64, depth: f64 },
    /// A disc of `radius` around the zone centre.
    Circle { radius: f64 },
}

/// How a zone's level is given by its author.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZoneHeight {
    /// An absolute height in metres.
    Absolute(f64),
    /// Metres above (or below) the world's procedural height at the zone centre,
    /// resolved once when the zone is registered.
    Offset(f64),
}

/// A zone as its author describes it, before its height is resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneSpec {
    pub center_x: f64,
    pub center_z: f64,
    pub shape: Shape,
    pub height: ZoneHeight,
    /// Width of the smoothstep ring between the core and the terrain; 0 for a hard edge.
    pub blend_radius: f64,
    /// Mesh cells whose four corners lie inside the core shrunk by this much are left
    /// out of the tile mesh (a floor model covers them); `None` (absent) carves nothing,
    /// `Some(0.0)` the whole core. A masked zone carves its footprint whatever this is,
    /// as the original does ([`FlatZone::carves`]). Never changes a height.
    pub carve_inset: Option<f64>,
    /// Layered worlds apply zones in (priority, revision) order: higher lies on top.
    pub priority: i32,
    /// Movement over the core ([`FlatZone::walkable`]).
    pub walkable: Option<bool>,
    /// The core as 1 m tiles (a building's footprint) instead of the whole rectangle
    /// ([`TileMask`]); only with a rectangle, every tile inside it.
    pub tile_mask: Option<TileMask>,
}

/// A registered zone with its height resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatZone {
    pub id: String,
    pub center_x: f64,
    pub center_z: f64,
    pub shape: Shape,
    /// The level of the core, in metres.
    pub height: f64,
    pub blend_radius: f64,
    /// [`ZoneSpec::carve_inset`]: absent stays absent.
    pub carve_inset: Option<f64>,
    pub priority: i32,
    /// Movement over the core: `Some(true)` a floor that is always walkable (as the
    /// original's server treats building footprints), `Some(false)` a building that
    /// blocks, `None` the world's terrain rule. Never changes a height.
    pub walkable: Option<bool>,
    /// The core as 1 m tiles ([`ZoneSpec::tile_mask`]).
    pub tile_mask: Option<TileMask>,
}

/// Limits a zone must respect besides its own invariants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneLimits {
    /// Largest width, depth, radius, blend radius or carve inset, in metres.
    pub max_size: f64,
    /// Largest |centerX|, |centerZ| and |height|.
    pub max_coordinate: f64,
}

impl Default for ZoneLimits {
    fn default() -> Self {
        ZoneLimits {
            max_size: 10_000.0,
            max_coordinate: 1e9,
        }
    }
}

/// Why a zone was refused. Every variant names the offending field: [`ZoneError::field`]
/// and [`ZoneError::reason`] are the two halves of the message (`Display` is
/// `"{field}: {reason}"`), so an API can carry the field structurally.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ZoneError {
    /// The id does not match `[A-Za-z0-9_.:-]{1,128}`.
    BadId(String),
    /// The id is `.` or `..`, which path-normalising clients cannot address.
    DotId(String),
    /// NaN or infinite.
    NotFinite { field: &'static str },
    /// Zero or negative where a positive size is needed.
    NotPositive { field: &'static str, value: f64 },
    /// Negative where zero is allowed.
    Negative { field: &'static str, value: f64 },
    /// Over a limit.
    TooLarge {
        field: &'static str,
        value: f64,
        max: f64,
    },
    /// A field that is missing or conflicts with another one.
    Shape {
        field: &'static str,
        reason: &'static str,
    },
}

impl ZoneError {
    /// The request field the error is about.
    pub fn field(&self) -> &'static str {
        match self {
            ZoneError::BadId(_) | ZoneError::DotId(_) => "id",
            ZoneError::NotFinite { field }
            | ZoneError::NotPositive { field, .. }
            | ZoneError::Negative { field, .. }
            | ZoneError::TooLarge { field, .. }
            | ZoneError::Shape { field, .. } => field,
        }
    }

    /// Why [`field`](Self::field) was refused, without the field itself, e.g.
    /// `must be a finite number`.
    pub fn reason(&self) -> String {
        match self {
            ZoneError::BadId(id) => {
                format!("must match [A-Za-z0-9_.:-]{{1,128}} (got {})", Quoted(id))
            }
            ZoneError::DotId(id) => format!(
                "{} is a path segment that clients and proxies rewrite; choose another id",
                Quoted(id)
            ),
            ZoneError::NotFinite { .. } => "must be a finite number".to_string(),
            ZoneError::NotPositive { value, .. } => {
                format!("must be greater than 0 (got {})", Num(*value))
            }
            ZoneError::Negative { value, .. } => {
                format!("must not be negative (got {})", Num(*value))
            }
            ZoneError::TooLarge { value, max, .. } => {
                format!("must be at most {} (got {})", Num(*max), Num(*value))
            }
            ZoneError::Shape { reason, .. } => (*reason).to_string(),
        }
    }
}

impl fmt::Display for ZoneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field(), self.reason())
    }
}

/// Checks a zone id: `[A-Za-z0-9_.:-]{1,128}`.
pub fn validate_id(id: &str) -> Result<(), ZoneError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
    if !ok {
        return Err(ZoneError::BadId(id.to_string()));
    }
    // Path segments a normalising client or proxy rewrites: such a zone could never be
    // addressed as `/zones/{id}`.
    if matches!(id, "." | "..") {
        return Err(ZoneError::DotId(id.to_string()));
    }
    Ok(())
}

/// The one check of a zone, wherever it comes from: a request (registry), a backup
/// (`restore`) or the store read at start-up. `id` against [`validate_id`], `spec`
/// against its invariants and `limits`.
pub fn validate_zone(id: &str, spec: &ZoneSpec, limits: &ZoneLimits) -> Result<(), ZoneError> {
    validate_id(id)?;
    spec.validate(limits)
}

fn finite(field: &'static str, v: f64) -> Result<f64, ZoneError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ZoneError::NotFinite { field })
    }
}

fn size(field: &'static str, v: f64, max: f64, positive: bool) -> Result<(), ZoneError> {
    finite(field, v)?;
    if positive && v <= 0.0 {
        return Err(ZoneError::NotPositive { field, value: v });
    }
    if v < 0.0 {
        return Err(ZoneError::Negative { field, value: v });
    }
    if v > max {
        return Err(ZoneError::TooLarge {
            field,
            value: v,
            max,
        });
    }
    Ok(())
}

fn coordinate(field: &'static str, v: f64, max: f64) -> Result<(), ZoneError> {
    finite(field, v)?;
    if v.abs() > max {
        return Err(ZoneError::TooLarge {
            field,
            value: v,
            max,
        });
    }
    Ok(())
}

impl ZoneSpec {
    /// Checks every field against the zone's invariants and `limits`.
    pub fn validate(&self, limits: &ZoneLimits) -> Result<(), ZoneError> {
        coordinate("centerX", self.center_x, limits.max_coordinate)?;
        coordinate("centerZ", self.center_z, limits.max_coordinate)?;
        match self.shape {
            Shape::Rect { width, depth } => {
                size("width", width, limits.max_size, true)?;
                size("depth", depth, limits.max_size, true)?;
            }
            Shape::Circle { radius } => size("radius", radius, limits.max_size, true)?,
        }
        match self.height {
            ZoneHeight::Absolute(h) => coordinate("height", h, limits.max_coordinate)?,
            ZoneHeight::Offset(h) => coordinate("heightOffset", h, limits.max_coordinate)?,
        }
        size("blendRadius", self.blend_radius, limits.max_size, false)?;
        if let Some(inset) = self.carve_inset {
            size("carveInset", inset, limits.max_size, false)?;
        }
        if let Some(mask) = &self.tile_mask {
            let Shape::Rect { width, depth } = self.shape else {
                return Err(ZoneError::Shape {
                    field: "tileMask",
                    reason: "needs a rectangle (width and depth), not a radius",
                });
            };
            mask.check_inside(self.center_x, self.center_z, width / 2.0, depth / 2.0)?;
        }
        Ok(())
    }

    /// The registered zone `id`, its height resolved against `procedural_at_center`
    /// (the world's procedural height at the centre; used only for an offset).
    pub fn resolve(&self, id: impl Into<String>, procedural_at_center: f64) -> FlatZone {
        let height = match self.height {
            ZoneHeight::Absolute(h) => h,
            ZoneHeight::Offset(o) => procedural_at_center + o,
        };
        FlatZone {
            id: id.into(),
            center_x: self.center_x,
            center_z: self.center_z,
            shape: self.shape,
            height,
            blend_radius: self.blend_radius,
            carve_inset: self.carve_inset,
            priority: self.priority,
            walkable: self.walkable,
            tile_mask: self.tile_mask.clone(),
        }
    }
}

/// How one zone affects a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    /// Inside the core; `distance` is the normalised distance from the centre
    /// (Chebyshev `max(dx/hw, dz/hd)` for rectangles, `d/r` for circles), in [0, 1].
    Core { distance: f64 },
    /// In the blend ring; `factor` in (0, 1] is how far across the ring the point is.
    Blend { factor: f64 },
}

/// An axis-aligned rectangle on the ground plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min_x: f64,
    pub min_z: f64,
    pub max_x: f64,
    pub max_z: f64,
}

impl Bounds {
    /// Whether the two rectangles share a point (edges included).
    pub fn meets(&self, o: &Bounds) -> bool {
        self.min_x <= o.max_x
            && o.min_x <= self.max_x
            && self.min_z <= o.max_z
            && o.min_z <= self.max_z
    }
}

impl FlatZone {
    /// [`validate_zone`] of this zone as stored (its height resolved).
    ///
    /// Its height may be a resolved `heightOffset`: the offset (at most
    /// `max_coordinate`, as the API checks it) plus the ground at the centre, so the
    /// stored height is checked against twice the range; every other field as the API
    /// checks it.
    pub fn validate(&self, limits: &ZoneLimits) -> Result<(), ZoneError> {
        let spec = ZoneSpec {
            height: ZoneHeight::Absolute(0.0),
            ..self.spec()
        };
        validate_zone(&self.id, &spec, limits)?;
        coordinate("height", self.height, 2.0 * limits.max_coordinate)
    }

    /// The spec this zone would be registered from, with its height absolute.
    pub fn spec(&self) -> ZoneSpec {
        ZoneSpec {
            center_x: self.center_x,
            center_z: self.center_z,
            shape: self.shape,
            height: ZoneHeight::Absolute(self.height),
            blend_radius: self.blend_radius,
            carve_inset: self.carve_inset,
            priority: self.priority,
            walkable: self.walkable,
            tile_mask: self.tile_mask.clone(),
        }
    }

    /// Half extents of the core along X and Z.
    pub fn half_extents(&self) -> (f64, f64) {
        match self.shape {
            Shape::Rect { width, depth } => (width / 2.0, depth / 2.0),
            Shape::Circle { radius } => (radius, radius),
        }
    }

    /// The rectangle the zone can affect: the core plus the blend ring.
    pub fn outer_bounds(&self) -> Bounds {
        let (hw, hd) = self.half_extents();
        let (rx, rz) = (hw + self.blend_radius, hd + self.blend_radius);
        Bounds {
            min_x: self.center_x - rx,
            min_z: self.center_z - rz,
            max_x: self.center_x + rx,
            max_z: self.center_z + rz,
        }
    }

    /// How this zone affects `(x, z)` (docs/src/reference/zones.md, "How one zone reaches a point", for rectangles: inclusive core,
    /// Chebyshev ring; the radial analogue for circles).
    #[inline]
    pub fn reach(&self, x: f64, z: f64) -> Option<Reach> {
        if let Some(mask) = &self.tile_mask {
            return self.mask_reach(mask, x, z);
        }
        let (dx, dz) = ((x - self.center_x).abs(), (z - self.center_z).abs());
        let br = self.blend_radius;
        match self.shape {
            Shape::Rect { width, depth } => {
                let (hw, hd) = (width / 2.0, depth / 2.0);
                if dx <= hw && dz <= hd {
                    return Some(Reach::Core {
                        distance: f64::max(dx / hw, dz / hd),
                    });
                }
                if br > 0.0 && dx <= hw + br && dz <= hd + br {
                    let bx = if dx > hw { (dx - hw) / br } else { 0.0 };
                    let bz = if dz > hd { (dz - hd) / br } else { 0.0 };
                    return Some(Reach::Blend {
                        factor: f64::max(bx, bz),
                    });
                }
                None
            }
            Shape::Circle { radius } => {
                if dx > radius + br || dz > radius + br {
                    return None;
                }
                let d = libm::sqrt(dx * dx + dz * dz);
                if d <= radius {
                    Some(Reach::Core {
                        distance: d / radius,
                    })
                } else if br > 0.0 && d <= radius + br {
                    Some(Reach::Blend {
                        factor: (d - radius) / br,
                    })
                } else {
                    None
                }
            }
        }
    }

    /// How a masked zone reaches `(x, z)`: core on a mask tile (with the rectangle's
    /// core distance), blend by the distance to the nearest mask tile (see
    /// [`TileMask`]); the rectangle itself is not tested.
    fn mask_reach(&self, mask: &TileMask, x: f64, z: f64) -> Option<Reach> {
        if mask.covers(x, z) {
            let (hw, hd) = self.half_extents();
            let cx = if hw > 0.0 {
                (x - self.center_x).abs() / hw
            } else {
                0.0
            };
            let cz = if hd > 0.0 {
                (z - self.center_z).abs() / hd
            } else {
                0.0
            };
            return Some(Reach::Core {
                distance: f64::max(cx, cz),
            });
        }
        let r = self.blend_radius;
        if r <= 0.0 {
            return None;
        }
        let d = mask.distance_within(x, z, r)?;
        Some(Reach::Blend { factor: d / r })
    }

    /// True when the zone can carve a mesh cell at all: it has a tile mask or a
    /// `carve_inset`.
    pub fn may_carve(&self) -> bool {
        self.tile_mask.is_some() || self.carve_inset.is_some()
    }

    /// True when the zone carves a mesh vertex at `(x, z)`, the original's
    /// `applyFlatZoneCarve` (mesh cells whose four corners one zone carves are left out):
    ///
    /// - a masked zone: when the point's tile `(floor(x), floor(z))` is in the mask,
    ///   whatever its `carve_inset` (the footprint itself, never shrunk);
    /// - otherwise only with a `carve_inset`: inside the core shrunk by it (a rectangle
    ///   `|dx| <= width/2 - inset`, `|dz| <= depth/2 - inset` with both halves above 0; a
    ///   disc of radius `radius - inset` above 0). An inset of 0 carves the whole core.
    ///
    /// For the original's tile meshes `(x, z)` is the vertex's float32 local position
    /// plus the tile's placement ([`crate::tile::vertex_coord`]), as the original
    /// computes it; that matters at mask tile edges.
    pub fn carves(&self, x: f64, z: f64) -> bool {
        if let Some(mask) = &self.tile_mask {
            return mask.covers(x, z);
        }
        let Some(inset) = self.carve_inset else {
            return false;
        };
        let (dx, dz) = ((x - self.center_x).abs(), (z - self.center_z).abs());
        match self.shape {
            Shape::Rect { width, depth } => {
                let (cw, cd) = (width / 2.0 - inset, depth / 2.0 - inset);
                cw > 0.0 && cd > 0.0 && dx <= cw && dz <= cd
            }
            Shape::Circle { radius } => {
                let r = radius - inset;
                r > 0.0 && dx * dx + dz * dz <= r * r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_are_not_zone_ids() {
        for id in [".", ".."] {
            assert_eq!(validate_id(id), Err(ZoneError::DotId(id.into())), "{id}");
        }
        for id in ["...", ".a", "a..b", "station:1.2"] {
            assert_eq!(validate_id(id), Ok(()), "{id}");
        }
    }

    /// The message is the field and the reason, so neither has to be cut out of it.
    #[test]
    fn errors_are_field_then_reason() {
        let errors = [
            ZoneError::BadId("a b".into()),
            ZoneError::NotFinite { field: "centerX" },
            ZoneError::NotPositive {
                field: "width",
                value: -2.0,
            },
            ZoneError::Negative {
                field: "carveInset",
                value: -1.0,
            },
            ZoneError::TooLarge {
                field: "depth",
                value: 20.0,
                max: 10.0,
            },
            ZoneError::Shape {
                field: "height",
                reason: "required (or heightOffset)",
            },
        ];
        for e in &errors {
            assert_eq!(e.to_string(), format!("{}: {}", e.field(), e.reason()));
        }
        assert_eq!(errors[0].field(), "id");
        assert_eq!(
            errors[0].reason(),
            r#"must match [A-Za-z0-9_.:-]{1,128} (got "a b")"#
        );
        assert_eq!(errors[2].reason(), "must be greater than 0 (got -2)");
        assert_eq!(errors[4].reason(), "must be at most 10 (got 20)");
        let spec = ZoneSpec {
            center_x: f64::NAN,
            center_z: 0.0,
            shape: Shape::Circle { radius: 1.0 },
            height: ZoneHeight::Absolute(0.0),
            blend_radius: 0.0,
            carve_inset: None,
            priority: 0,
            walkable: None,
            tile_mask: None,
        };
        let e = spec.validate(&ZoneLimits::default()).unwrap_err();
        assert_eq!(
            (e.field(), e.reason().as_str()),
            ("centerX", "must be a finite number")
        );
    }
}
