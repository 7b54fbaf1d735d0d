//! The [`Generator`] abstraction: a pure, deterministic height field over the X-Z
//! ground plane, with an area path that fills a regular [`Grid`] and agrees with the
//! per-point path exactly; the three generators side by side; and, apart from them,
//! the enum that picks one.
//!
//! - this module and [`Grid`]: the trait every generator implements; it names no
//!   generator.
//! - [`hyperscape`]: the Hyperscape island terrain (seeds 000/001), with its vertex
//!   colours, its tile conventions and the zones the game derives from its manifests.
//! - [`osrs`]: the old RuneScape client's procedural tile heights (docs/src/reference/osrs.md).
//! - [`voxel`]: the voxel block world (docs/src/reference/voxel.md): blocks, chunks and their binary form,
//!   culled instances and greedy meshes.
//! - `world_generator`: [`WorldGenerator`] and [`GeneratorKind`], the closed set a world
//!   can be configured with, dispatched statically: the one module that names all three.
//!
//! A generator names the trait and the layers below (maths, zones, the tile layout),
//! never another generator nor the enum (the layers test checks it). What a generator
//! shares with the rest of the crate goes down, not sideways or up: the smoothstep and
//! JavaScript's functions are [`crate::maths`]; the tile coordinate conventions the
//! hyperscape worker samples on are [`crate::tile`]'s; the glTF form of a greedy voxel
//! mesh is the meshes' ([`crate::mesh::glb`]). The Hyperscape manifests' zones stay
//! with hyperscape ([`hyperscape::manifest`]): they are that game's data, read into the
//! generic zones below.

pub mod hyperscape;
pub mod osrs;
pub mod voxel;

mod grid;
mod world_generator;

pub use grid::{Grid, GridError};
pub use world_generator::{GeneratorError, GeneratorKind, WorldGenerator};

use std::ops::Range;

/// A deterministic height field: `height(x, z)` in metres, Y up.
///
/// Implementations must be pure functions of their construction parameters and the
/// point: the same answer on every run, thread and machine (f64 maths, `libm` for
/// transcendental functions, no fused multiply-add, no hash-map order).
pub trait Generator: Send + Sync {
    /// The height at `(x, z)`. Inputs must be finite; callers validate them.
    fn height(&self, x: f64, z: f64) -> f64;

    /// The height flat zones blend toward and resolve `heightOffset` against. For
    /// hyperscape it is the procedural height with mountain boost and without the
    /// shoreline adjustment (as the original); by default it is [`Generator::height`].
    fn procedural(&self, x: f64, z: f64) -> f64 {
        self.height(x, z)
    }

    /// The height at a point no flat zone reaches, when samples the generator reads
    /// around the point may fall in a zone: `zone_at(x, z)` gives the zone height
    /// there, if any. Hyperscape's shoreline slope reads four neighbours 1 m away and
    /// sees zones (docs/src/reference/height.md, "The shoreline adjustment"); by default the answer is [`Generator::height`].
    fn height_near_zones(&self, x: f64, z: f64, zone_at: &dyn Fn(f64, f64) -> Option<f64>) -> f64 {
        let _ = zone_at;
        self.height(x, z)
    }

    /// [`Generator::height_near_zones`] when `procedural == self.procedural(x, z)` is
    /// already known (from [`Generator::fill_axes_procedural`]); the same bits. By
    /// default the known value is not needed.
    fn height_near_zones_from(
        &self,
        procedural: f64,
        x: f64,
        z: f64,
        zone_at: &dyn Fn(f64, f64) -> Option<f64>,
    ) -> f64 {
        let _ = procedural;
        self.height_near_zones(x, z, zone_at)
    }

    /// [`Generator::fill_axes`] into `out`, and [`Generator::procedural`] at the same
    /// points into `procedural` (same layout and length), bit for bit. Flat zones
    /// blend toward the procedural height, so a grid under zones needs both. The
    /// default evaluates the procedural height point by point; generators whose area
    /// path computes it on the way override this.
    fn fill_axes_procedural(
        &self,
        xs: &[f64],
        zs: &[f64],
        out: &mut [f64],
        procedural: &mut [f64],
    ) {
        self.fill_axes(xs, zs, out);
        for (&z, row) in zs.iter().zip(procedural.chunks_exact_mut(xs.len().max(1))) {
            for (&x, p) in xs.iter().zip(row.iter_mut()) {
                *p = self.procedural(x, z);
            }
        }
    }

    /// Fills rows `rows` of `grid` into `out`, row-major (x fastest), so that
    /// `out[(iz - rows.start) * grid.nx + ix] == self.height(grid.x(ix), grid.z(iz))`
    /// bit for bit. Splitting a grid into row bands therefore never changes a value.
    ///
    /// `out.len()` must be `rows.len() * grid.nx`. The default evaluates point by
    /// point; generators override it with a faster area path.
    fn fill_rows(&self, grid: &Grid, rows: Range<usize>, out: &mut [f64]) {
        debug_assert_eq!(out.len(), rows.len() * grid.nx);
        for (iz, row) in rows.zip(out.chunks_exact_mut(grid.nx.max(1))) {
            let z = grid.z(iz);
            for (ix, h) in row.iter_mut().enumerate() {
                *h = self.height(grid.x(ix), z);
            }
        }
    }

    /// Fills the product grid `xs` x `zs` into `out`, row-major (x fastest):
    /// `out[iz * xs.len() + ix] == self.height(xs[ix], zs[iz])` bit for bit. This is
    /// the area path for irregular axes, such as tile vertices whose coordinates follow
    /// a convention of their own. The default evaluates point by point.
    ///
    /// `out.len()` must be `xs.len() * zs.len()`.
    fn fill_axes(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        debug_assert_eq!(out.len(), xs.len() * zs.len());
        for (&z, row) in zs.iter().zip(out.chunks_exact_mut(xs.len().max(1))) {
            for (&x, h) in xs.iter().zip(row.iter_mut()) {
                *h = self.height(x, z);
            }
        }
    }

    /// Fills the whole of `grid` into `out` (`out.len() == grid.len()`).
    fn fill(&self, grid: &Grid, out: &mut [f64]) {
        self.fill_rows(grid, 0..grid.nz, out);
    }
}
