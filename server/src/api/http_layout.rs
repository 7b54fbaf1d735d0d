//! `GET /v1/worlds/{world}/layout` and `GET /v1/worlds/{world}/zone-class` (see
//! [`super::http_lifecycle`] for the route table).

use std::sync::Arc;

use axum::{
    Json,
    extract::{
        Path, Query, State,
        rejection::{PathRejection, QueryRejection},
    },
};
use serde::Serialize;
use terrain_core::layout::{CellClass, Layout, ZoneClass};

use crate::{
    api::ApiError,
    api::{
        ApiState,
        params::{self, Params},
    },
    query::layout::LayoutRequest,
};

type WorldPath = Result<Path<String>, PathRejection>;
type QueryPairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

#[derive(Debug, Serialize)]
struct HubJson {
    id: String,
    x: f64,
    z: f64,
    r: f64,
    chunk: [i64; 2],
}

#[derive(Debug, Serialize)]
struct SpokeJson {
    a: String,
    b: String,
}

#[derive(Debug, Serialize)]
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

pub async fn layout(
    State(state): State<Arc<ApiState>>,
    path: WorldPath,
    query: QueryPairs,
) -> Result<Json<LayoutJson>, ApiError> {
    let params = Params::new(query)?;
    let world = state.engine.world(&params::world(path)?)?;
    let req = LayoutRequest {
        min_x: params.number("minX")?,
        min_z: params.number("minZ")?,
        max_x: params.number("maxX")?,
        max_z: params.number("maxZ")?,
    };
    let layout = state.engine.layout(world, req).await?;
    Ok(Json(layout.into()))
}

#[derive(Debug, Serialize)]
pub struct ZoneClassJson {
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

pub async fn zone_class(
    State(state): State<Arc<ApiState>>,
    path: WorldPath,
    query: QueryPairs,
) -> Result<Json<ZoneClassJson>, ApiError> {
    let params = Params::new(query)?;
    let world = state.engine.world(&params::world(path)?)?;
    let (x, z) = (params.number("x")?, params.number("z")?);
    let class = state.engine.zone_class(world, x, z).await?;
    Ok(Json(class.into()))
}
