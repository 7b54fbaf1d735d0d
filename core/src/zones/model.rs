//! The flat-zone model: what a zone is, how it is validated, and how one zone
//! classifies a point (core, blend ring, or untouched).

use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZoneSpec {
    pub center_x: f64,
    pub center_z: f64,
    pub shape: Shape,
    pub height: ZoneHeight,
    /// Width of the smoothstep ring between the core and the terrain; 0 for a hard edge.
    pub blend_radius: f64,
    /// Mesh cells whose four corners lie inside the core shrunk by this much are left
    /// out of the tile mesh (a floor model covers them). Never changes a height.
    pub carve_inset: f64,
    /// Layered worlds apply zones in (priority, revision) order: higher lies on top.
    pub priority: i32,
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
    pub carve_inset: f64,
    pub priority: i32,
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

/// Why a zone was refused. Every variant names the offending field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ZoneError {
    #[error("id: must match [A-Za-z0-9_.:-]{{1,128}} (got {0:?})")]
    BadId(String),
    #[error("{field}: must be a finite number")]
    NotFinite { field: &'static str },
    #[error("{field}: must be greater than 0 (got {value})")]
    NotPositive { field: &'static str, value: f64 },
    #[error("{field}: must not be negative (got {value})")]
    Negative { field: &'static str, value: f64 },
    #[error("{field}: must be at most {max} (got {value})")]
    TooLarge {
        field: &'static str,
        value: f64,
        max: f64,
    },
    #[error("{field}: {reason}")]
    Shape {
        field: &'static str,
        reason: &'static str,
    },
}

impl ZoneError {
    /// The request field the error is about.
    pub fn field(&self) -> &'static str {
        match self {
            ZoneError::BadId(_) => "id",
            ZoneError::NotFinite { field }
            | ZoneError::NotPositive { field, .. }
            | ZoneError::Negative { field, .. }
            | ZoneError::TooLarge { field, .. }
            | ZoneError::Shape { field, .. } => field,
        }
    }
}

/// Checks a zone id: `[A-Za-z0-9_.:-]{1,128}`.
pub fn validate_id(id: &str) -> Result<(), ZoneError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ZoneError::BadId(id.to_string()))
    }
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
        size("carveInset", self.carve_inset, limits.max_size, false)?;
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

impl FlatZone {
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

    /// How this zone affects `(x, z)` (ALGORITHM.md §8.2 for rectangles: inclusive core,
    /// Chebyshev ring; the radial analogue for circles).
    #[inline]
    pub fn reach(&self, x: f64, z: f64) -> Option<Reach> {
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

    /// True when `(x, z)` lies inside the core shrunk by `carve_inset` (and that shrunk
    /// core is not empty): mesh cells with four such corners are carved.
    pub fn carves(&self, x: f64, z: f64) -> bool {
        if self.carve_inset <= 0.0 {
            return false;
        }
        let (dx, dz) = ((x - self.center_x).abs(), (z - self.center_z).abs());
        match self.shape {
            Shape::Rect { width, depth } => {
                let (cw, cd) = (
                    width / 2.0 - self.carve_inset,
                    depth / 2.0 - self.carve_inset,
                );
                cw > 0.0 && cd > 0.0 && dx <= cw && dz <= cd
            }
            Shape::Circle { radius } => {
                let r = radius - self.carve_inset;
                r > 0.0 && dx * dx + dz * dz <= r * r
            }
        }
    }
}

/// The JSON form of a zone, as the API and zone files write it (lowerCamelCase,
/// `width`+`depth` or `radius`, `height` or `heightOffset`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ZoneDoc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub center_x: f64,
    pub center_z: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_offset: Option<f64>,
    pub blend_radius: f64,
    #[serde(default)]
    pub carve_inset: f64,
    #[serde(default)]
    pub priority: i32,
}

impl ZoneDoc {
    /// The spec this document describes, or which field is missing or conflicting.
    pub fn spec(&self) -> Result<ZoneSpec, ZoneError> {
        let shape = match (self.width, self.depth, self.radius) {
            (Some(width), Some(depth), None) => Shape::Rect { width, depth },
            (None, None, Some(radius)) => Shape::Circle { radius },
            (_, _, Some(_)) => {
                return Err(ZoneError::Shape {
                    field: "radius",
                    reason: "give either radius or width and depth",
                });
            }
            (None, _, None) => {
                return Err(ZoneError::Shape {
                    field: "width",
                    reason: "required (or radius)",
                });
            }
            (Some(_), None, None) => {
                return Err(ZoneError::Shape {
                    field: "depth",
                    reason: "required with width",
                });
            }
        };
        let height = match (self.height, self.height_offset) {
            (Some(h), None) => ZoneHeight::Absolute(h),
            (None, Some(o)) => ZoneHeight::Offset(o),
            (Some(_), Some(_)) => {
                return Err(ZoneError::Shape {
                    field: "heightOffset",
                    reason: "give either height or heightOffset",
                });
            }
            (None, None) => {
                return Err(ZoneError::Shape {
                    field: "height",
                    reason: "required (or heightOffset)",
                });
            }
        };
        Ok(ZoneSpec {
            center_x: self.center_x,
            center_z: self.center_z,
            shape,
            height,
            blend_radius: self.blend_radius,
            carve_inset: self.carve_inset,
            priority: self.priority,
        })
    }

    /// The document of a registered zone (height resolved, id included).
    pub fn from_zone(z: &FlatZone) -> Self {
        let (width, depth, radius) = match z.shape {
            Shape::Rect { width, depth } => (Some(width), Some(depth), None),
            Shape::Circle { radius } => (None, None, Some(radius)),
        };
        ZoneDoc {
            id: Some(z.id.clone()),
            center_x: z.center_x,
            center_z: z.center_z,
            width,
            depth,
            radius,
            height: Some(z.height),
            height_offset: None,
            blend_radius: z.blend_radius,
            carve_inset: z.carve_inset,
            priority: z.priority,
        }
    }
}
