//! [`TerrainCodec`]: the protobuf codec of every `terrain.v1` service. It is prost's,
//! except that a message that does not decode is the caller's fault,
//! `INVALID_ARGUMENT` naming the message type (`request: not a valid
//! terrain.v1.GetHeightRequest: ...`), where prost's codec answers `INTERNAL`.

use std::marker::PhantomData;

use prost::{Message, Name};
use tonic::{
    Status,
    codec::{BufferSettings, Codec, DecodeBuf, Decoder},
};
use tonic_prost::ProstEncoder;

/// Encodes `T` and decodes `U` with prost; undecodable input is `INVALID_ARGUMENT`.
#[derive(Debug, Clone)]
pub struct TerrainCodec<T, U> {
    _types: PhantomData<(T, U)>,
}

impl<T, U> Default for TerrainCodec<T, U> {
    fn default() -> Self {
        TerrainCodec {
            _types: PhantomData,
        }
    }
}

impl<T, U> Codec for TerrainCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Name + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = TerrainDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        TerrainDecoder { _type: PhantomData }
    }
}

/// Decodes one `U`; a malformed one is `INVALID_ARGUMENT` naming `U`.
#[derive(Debug, Clone)]
pub struct TerrainDecoder<U> {
    _type: PhantomData<U>,
}

impl<U: Message + Name + Default> Decoder for TerrainDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| undecodable::<U>(&e))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// The status of a `U` that does not decode.
fn undecodable<U: Name>(err: &prost::DecodeError) -> Status {
    Status::invalid_argument(format!(
        "request: not a valid {} message ({err})",
        U::full_name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1 as pb;

    #[test]
    fn a_malformed_message_is_invalid_argument_naming_its_type() {
        let err = pb::GetHeightRequest::decode(&[0xffu8; 12][..]).unwrap_err();
        let status = undecodable::<pb::GetHeightRequest>(&err);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            status
                .message()
                .starts_with("request: not a valid terrain.v1.GetHeightRequest message"),
            "{}",
            status.message()
        );
    }
}
