//! The parts of the OpenAPI document that are not one handler's: the schema of the
//! batch body (decoded by a hand-written streaming visitor in [`crate::api::http::body`],
//! so it has no serde type to derive from) and the responses every route can give.

use utoipa::{
    PartialSchema, ToSchema,
    openapi::{
        KnownFormat, Object, ObjectBuilder, RefOr, SchemaFormat, Type,
        content::Content,
        header::Header,
        response::{Response, ResponseBuilder},
        schema::Schema,
    },
};

/// A binary body (`format: binary`): its layout is in the operation's description.
#[derive(Debug)]
pub struct Bytes;

impl PartialSchema for Bytes {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .description(Some("Raw bytes; the operation describes their layout"))
            .into()
    }
}

impl ToSchema for Bytes {}

/// `POST /v1/worlds/{world}/heights` (and `.../terrain-info`) as JSON: the points to
/// sample, `[x, z]` each, in metres, and optionally the revision to answer as of. Keys
/// other than `points` and `revision` are refused (field `body`); a malformed point is
/// refused naming it (`points[3]`); more than `max_batch_points` is `413` (field
/// `points`); a revision that is not an unsigned integer is `400` (field `revision`).
#[derive(Debug, ToSchema)]
#[schema(example = json!({"points": [[0.0, 0.0], [12.5, -40.0]]}))]
#[allow(dead_code)] // Read by the schema only: the route decodes the body itself.
pub struct PointsBody {
    /// `[x, z]` pairs.
    points: Vec<[f64; 2]>,
    /// Answer as of this earlier revision of the world (lag compensation), while its
    /// history still holds it (`asof_revisions` revisions before the current one); the
    /// answer then carries it. Absent or null: now.
    revision: Option<u64>,
}

/// A terrain-info body: as [`PointsBody`], with at least one point.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"points": [[0.0, 0.0], [12.5, -40.0]]}))]
#[allow(dead_code)] // Read by the schema only: the route decodes the body itself.
pub struct InfoBody {
    /// `[x, z]` pairs: at least one.
    points: Vec<[f64; 2]>,
    /// Answer as of this earlier revision of the world (lag compensation), while its
    /// history still holds it (`asof_revisions` revisions before the current one); the
    /// answer then carries it. Absent or null: now.
    revision: Option<u64>,
}

/// The error body as a response's content.
fn error_content() -> Content {
    Content::new(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
        "ErrorBody",
    ))))
}

fn error_response(description: &str) -> ResponseBuilder {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", error_content())
}

/// The responses `Shared` adds to operations, by component name.
pub fn shared_responses() -> Vec<(String, RefOr<Response>)> {
    let seconds = Header::new(Object::with_type(Type::Integer));
    let mut retry = seconds;
    retry.description = Some("Seconds to wait before retrying".to_string());
    vec![
        (
            "Internal".to_string(),
            RefOr::T(
                error_response("Something that is not the client's fault (`INTERNAL`)").build(),
            ),
        ),
        (
            "Overloaded".to_string(),
            RefOr::T(
                error_response(
                    "Every request slot (`max_in_flight`) is busy, or the server is starting \
                     or shutting down (`RESOURCE_EXHAUSTED` / `UNAVAILABLE`); retry after \
                     `Retry-After` seconds when it is given",
                )
                .header("Retry-After", retry)
                .build(),
            ),
        ),
        (
            "TimedOut".to_string(),
            RefOr::T(
                error_response("Not answered within `request_timeout` (`DEADLINE_EXCEEDED`)")
                    .build(),
            ),
        ),
        (
            "BodyTimedOut".to_string(),
            RefOr::T(
                error_response(
                    "The body did not arrive in full within `request_body_timeout` (field \
                     `body`, `DEADLINE_EXCEEDED`); the connection is closed",
                )
                .build(),
            ),
        ),
    ]
}
