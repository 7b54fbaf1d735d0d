//! A regular sampling grid over the ground plane.

/// `nx * nz` samples at `(x0 + ix * step, z0 + iz * step)`, stored row-major along z
/// with x fastest: index `iz * nx + ix`.
///
/// Coordinates are always computed from the origin as `x0 + ix * step` (never by
/// accumulating `step`), so any sub-range of rows sees exactly the coordinates the
/// whole grid does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub x0: f64,
    pub z0: f64,
    pub step: f64,
    pub nx: usize,
    pub nz: usize,
}

/// Why a [`Grid`] was refused. Each variant names the offending field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GridError {
    #[error("{field}: must be a finite number")]
    NotFinite { field: &'static str },
    #[error("step: must be greater than 0")]
    StepNotPositive,
    #[error("{field}: must be greater than 0")]
    EmptyAxis { field: &'static str },
}

impl Grid {
    /// A grid with validated parameters: finite origin, `step > 0`, `nx, nz > 0`.
    pub fn new(x0: f64, z0: f64, step: f64, nx: usize, nz: usize) -> Result<Self, GridError> {
        for (field, v) in [("x0", x0), ("z0", z0), ("step", step)] {
            if !v.is_finite() {
                return Err(GridError::NotFinite { field });
            }
        }
        if step <= 0.0 {
            return Err(GridError::StepNotPositive);
        }
        if nx == 0 {
            return Err(GridError::EmptyAxis { field: "nx" });
        }
        if nz == 0 {
            return Err(GridError::EmptyAxis { field: "nz" });
        }
        Ok(Self {
            x0,
            z0,
            step,
            nx,
            nz,
        })
    }

    /// The x coordinate of column `ix`.
    #[inline]
    pub fn x(&self, ix: usize) -> f64 {
        self.x0 + ix as f64 * self.step
    }

    /// The z coordinate of row `iz`.
    #[inline]
    pub fn z(&self, iz: usize) -> f64 {
        self.z0 + iz as f64 * self.step
    }

    /// The number of samples, `nx * nz` (saturating).
    pub fn len(&self) -> usize {
        self.nx.saturating_mul(self.nz)
    }

    /// True when the grid holds no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
