//! The layout layer over HTTP: the hubs and spokes of an area, the zone class of a
//! point.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /v1/worlds/{world}/layout?minX=&minZ=&maxX=&maxZ=` | `{"hubs": [{"id", "x", "z", "r", "chunk"}], "spokes": [{"a", "b"}]}` |
//! | `GET /v1/worlds/{world}/zone-class?x=&z=` | `{"class": "hub" \| "spoke" \| "wilds", "hub": id \| null, "cell": [i, j]}` |

use std::sync::Arc;

use axum::{Json, extract::State};
use serde::Serialize;
use terrain_core::layout::{CellClass, Layout, ZoneClass};

use super::extract::{Query, World};
use crate::{
    api::{ApiError, ApiState},
    query::layout::{LayoutFields, LayoutRequest},
};

/// The query parameters of a layout rectangle, as errors name them.
const FIELDS: LayoutFields = LayoutFields {
    min_x: "minX",
    min_z: "minZ",
    max_x: "maxX",
    max_z: "maxZ",
};

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HubJson {
    id: String,
    x: f64,
    z: f64,
    r: f64,
    chunk: [i64; 2],
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SpokeJson {
    a: String,
    b: String,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LayoutJson {
    hubs: Vec<HubJson>,
    spokes: Vec<SpokeJson>,
}

impl From<Layout> for LayoutJson {
    fn from(layout: Layout) -> Self {
        LayoutJson {
            hubs: layout
                .hubs
                .into_iter()
                .map(|h| HubJson {
                    id: h.id,
                    x: h.x,
                    z: h.z,
                    r: h.r,
                    chunk: [h.chunk.0, h.chunk.1],
                })
                .collect(),
            spokes: layout
                .spokes
                .into_iter()
                .map(|s| SpokeJson { a: s.a, b: s.b })
                .collect(),
        }
    }
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/layout",
    tag = "layout",
    params(
        ("minX" = f64, Query, description = "West edge of the area, metres"),
        ("minZ" = f64, Query, description = "North edge, metres"),
        ("maxX" = f64, Query, description = "East edge, metres (>= minX)"),
        ("maxZ" = f64, Query, description = "South edge, metres (>= minZ)"),
    ),
    responses(
        (status = 200, description = "The hubs and spokes in the area", body = LayoutJson),
        (status = 400, description = "A missing, repeated, malformed or out-of-range parameter (the field names it)"),
        (status = 404, description = "No such world, or a world without a layout layer (field `world`)"),
        (status = 413, description = "An area covering too many layout cells"),
    ),
)]
pub async fn layout(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    params: Query,
) -> Result<Json<LayoutJson>, ApiError> {
    params.pairs()?;
    let world = state.engine.world(&world)?;
    let req = LayoutRequest {
        min_x: params.number(FIELDS.min_x)?,
        min_z: params.number(FIELDS.min_z)?,
        max_x: params.number(FIELDS.max_x)?,
        max_z: params.number(FIELDS.max_z)?,
    };
    let layout = state.engine.layout(world, req, &FIELDS).await?;
    Ok(Json(layout.into()))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ZoneClassJson {
    /// `hub`, `spoke` or `wilds`.
    #[schema(example = "hub")]
    class: &'static str,
    hub: Option<String>,
    cell: [i64; 2],
}

impl From<CellClass> for ZoneClassJson {
    fn from(c: CellClass) -> Self {
        let (class, hub) = match c.class {
            ZoneClass::Hub(id) => ("hub", Some(id)),
            ZoneClass::Spoke => ("spoke", None),
            ZoneClass::Wilds => ("wilds", None),
        };
        ZoneClassJson {
            class,
            hub,
            cell: [c.cell.0, c.cell.1],
        }
    }
}

#[utoipa::path(
    get,
    path = "/v1/worlds/{world}/zone-class",
    tag = "layout",
    params(
        ("x" = f64, Query, description = "Metres"),
        ("z" = f64, Query, description = "Metres"),
    ),
    responses(
        (status = 200, description = "What the layout makes of (x, z)", body = ZoneClassJson),
        (status = 400, description = "A missing, repeated, malformed or out-of-range parameter (the field names it)"),
        (status = 404, description = "No such world, or a world without a layout layer (field `world`)"),
    ),
)]
pub async fn zone_class(
    State(state): State<Arc<ApiState>>,
    World(world): World,
    params: Query,
) -> Result<Json<ZoneClassJson>, ApiError> {
    params.pairs()?;
    let world = state.engine.world(&world)?;
    let (x, z) = (params.number("x")?, params.number("z")?);
    let class = state.engine.zone_class(world, x, z).await?;
    Ok(Json(class.into()))
}
