//! Layout queries: the hubs and spokes of a rectangle, and the zone class of a point,
//! for worlds with a layout layer. Both read the world's [`LayoutGround`], whose
//! caches make repeated questions about the same land cheap.

use std::sync::Arc;

use terrain_core::layout::{Area, CellClass, Layout, LayoutError, LayoutGround};

use super::QueryError;
use super::{QueryEngine, check_coordinate};
use crate::world::World;

/// A layout rectangle as asked, in metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutRequest {
    pub min_x: f64,
    pub min_z: f64,
    pub max_x: f64,
    pub max_z: f64,
}

/// How the caller names a layout rectangle's four bounds in errors: each surface
/// spells its own (`minX` in an HTTP query, `min_x` in a gRPC request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutFields {
    pub min_x: &'static str,
    pub min_z: &'static str,
    pub max_x: &'static str,
    pub max_z: &'static str,
}

/// A core layout refusal, naming the request's field (an inverted rectangle names
/// `max_x`, the caller's name of the bound checked against the others).
fn layout_error(err: LayoutError, max_x: &'static str) -> QueryError {
    match err {
        LayoutError::NotFinite { field } => QueryError::invalid(field, "must be finite"),
        LayoutError::InvertedBounds => QueryError::invalid(
            max_x,
            "the rectangle's min must not exceed its max on each axis",
        ),
        LayoutError::OutOfWorld => QueryError::invalid(
            "bounds",
            "reaches beyond the layout's chunk range (+-2^26 chunks)",
        ),
        LayoutError::TooLarge { what, count, max } => QueryError::too_large(
            "bounds",
            format!("covers {count} {what}, more than the limit {max}"),
        ),
        other => QueryError::Internal(format!("layout: {other}")),
    }
}

impl QueryEngine {
    /// The layout surface of `world`, or `NOT_FOUND` (field `world`).
    fn surface(world: &World) -> Result<Arc<LayoutGround>, QueryError> {
        world
            .layout_ground()
            .cloned()
            .ok_or_else(|| QueryError::NoLayout {
                world: world.id().to_string(),
            })
    }

    /// The hubs of every chunk the rectangle touches and every spoke with an end among
    /// them; a refusal names the bound at fault as `fields` say.
    pub async fn layout(
        &self,
        world: &World,
        req: LayoutRequest,
        fields: &LayoutFields,
    ) -> Result<Layout, QueryError> {
        let surface = Self::surface(world)?;
        let max = self.limits().max_coordinate;
        for (field, v) in [
            (fields.min_x, req.min_x),
            (fields.min_z, req.min_z),
            (fields.max_x, req.max_x),
            (fields.max_z, req.max_z),
        ] {
            check_coordinate(v, max).map_err(|r| QueryError::invalid(field, r))?;
        }
        let max_x = fields.max_x;
        let area = Area::new(req.min_x, req.min_z, req.max_x, req.max_z)
            .map_err(|e| layout_error(e, max_x))?;
        self.offload(move || surface.layout_in(&area).map_err(|e| layout_error(e, max_x)))
            .await
    }

    /// The class of the classification cell holding `(x, z)`.
    pub async fn zone_class(&self, world: &World, x: f64, z: f64) -> Result<CellClass, QueryError> {
        let surface = Self::surface(world)?;
        let max = self.limits().max_coordinate;
        check_coordinate(x, max).map_err(|r| QueryError::invalid("x", r))?;
        check_coordinate(z, max).map_err(|r| QueryError::invalid("z", r))?;
        // A point cannot be an inverted rectangle; its fields are `x` and `z`.
        self.offload(move || surface.classify(x, z).map_err(|e| layout_error(e, "x")))
            .await
    }
}
