//! The built module holds no relaxed-SIMD instruction: those (prefix `0xFD`,
//! sub-opcodes `0x100..=0x113` of the relaxed-simd proposal: `i8x16.relaxed_swizzle`
//! to `i32x4.relaxed_dot_i8x16_i7x16_add_s`) may round or choose lanes differently
//! from machine to machine, and Node 20 refuses to load a module with one. terrain-core
//! keeps pulp's dispatch (which compiles them) off WebAssembly; this test reads the
//! module the package builds to hold that.
//!
//! And it carries the replica and nothing a browser does not need: its function names
//! (the name section) include terrain-core's generators, zones, walk and meshes and
//! none of the server's parts (3D Tiles, glTF writing), the network stack or pulp.
//!
//! The module: `TERRAIN_WASM` when set (it must exist; `scripts/test-all.sh` and
//! `npm run build` set it), else the package's `client-sdk/node/wasm/terrain_wasm_bg.wasm`
//! when built; with neither, the test says so and checks only its own detector.

use std::path::PathBuf;

use wasmparser::{KnownCustom, Name, Operator, Parser, Payload, Validator, WasmFeatures};

/// The module the package carries (see the module comment), or `None` when not built.
fn built_module() -> Option<Vec<u8>> {
    let path = match std::env::var_os("TERRAIN_WASM") {
        Some(p) => PathBuf::from(p),
        None => {
            let built =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../node/wasm/terrain_wasm_bg.wasm");
            if !built.exists() {
                eprintln!(
                    "no module at {} and TERRAIN_WASM unset: not built, not checked",
                    built.display()
                );
                return None;
            }
            built
        }
    };
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// `name` without the crate disambiguators some symbols carry (`core[c5930c85a12de822]::`
/// reads `core::`).
fn plain(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|c| open + c);
        match close {
            Some(close) if rest[open + 1..close].bytes().all(|b| b.is_ascii_hexdigit()) => {
                out.push_str(&rest[..open]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The names of `wasm`'s functions (its name section), without disambiguators.
fn function_names(wasm: &[u8]) -> Vec<String> {
    let mut names = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        let Payload::CustomSection(section) = payload.expect("a well-formed module") else {
            continue;
        };
        let KnownCustom::Name(reader) = section.as_known() else {
            continue;
        };
        for name in reader {
            if let Name::Function(map) = name.expect("a name subsection") {
                for naming in map {
                    names.push(plain(naming.expect("a function name").name));
                }
            }
        }
    }
    names
}

/// The relaxed-SIMD instructions of `wasm` by name, at most `limit` of them.
fn relaxed_ops(wasm: &[u8], limit: usize) -> Vec<String> {
    let mut found = Vec::new();
    for payload in Parser::new(0).parse_all(wasm) {
        let Payload::CodeSectionEntry(body) = payload.expect("a well-formed module") else {
            continue;
        };
        let mut ops = body.get_operators_reader().expect("a function body");
        while !ops.eof() {
            let op = ops.read().expect("an instruction");
            if is_relaxed(&op) {
                found.push(format!("{op:?}"));
                if found.len() >= limit {
                    return found;
                }
            }
        }
    }
    found
}

/// Whether `op` is one of the relaxed-simd proposal's twenty instructions.
fn is_relaxed(op: &Operator<'_>) -> bool {
    matches!(
        op,
        Operator::I8x16RelaxedSwizzle
            | Operator::I32x4RelaxedTruncF32x4S
            | Operator::I32x4RelaxedTruncF32x4U
            | Operator::I32x4RelaxedTruncF64x2SZero
            | Operator::I32x4RelaxedTruncF64x2UZero
            | Operator::F32x4RelaxedMadd
            | Operator::F32x4RelaxedNmadd
            | Operator::F64x2RelaxedMadd
            | Operator::F64x2RelaxedNmadd
            | Operator::I8x16RelaxedLaneselect
            | Operator::I16x8RelaxedLaneselect
            | Operator::I32x4RelaxedLaneselect
            | Operator::I64x2RelaxedLaneselect
            | Operator::F32x4RelaxedMin
            | Operator::F32x4RelaxedMax
            | Operator::F64x2RelaxedMin
            | Operator::F64x2RelaxedMax
            | Operator::I16x8RelaxedQ15mulrS
            | Operator::I16x8RelaxedDotI8x16I7x16S
            | Operator::I32x4RelaxedDotI8x16I7x16AddS
    )
}

/// A module of one function `(v128) -> v128` whose body is `local.get 0`, `sub`
/// (`0xFD` and the LEB128 sub-opcode) three times over, `end`: `f64x2.relaxed_madd`
/// for `0x107`.
fn module_with(sub: u32) -> Vec<u8> {
    let mut body = vec![0x00, 0x20, 0x00, 0x20, 0x00, 0x20, 0x00, 0xFD];
    let mut v = sub;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            body.push(byte);
            break;
        }
        body.push(byte | 0x80);
    }
    body.push(0x0B);
    let mut wasm = b"\0asm\x01\0\0\0".to_vec();
    // Type section: one type, (v128) -> v128.
    wasm.extend([0x01, 0x06, 0x01, 0x60, 0x01, 0x7B, 0x01, 0x7B]);
    // Function section: one function of type 0.
    wasm.extend([0x03, 0x02, 0x01, 0x00]);
    // Code section: one body.
    wasm.push(0x0A);
    wasm.push((body.len() + 2) as u8);
    wasm.push(0x01);
    wasm.push(body.len() as u8);
    wasm.extend(body);
    wasm
}

/// The detector finds `f64x2.relaxed_madd` (`0xFD 0x107`) and
/// `i32x4.relaxed_dot_i8x16_i7x16_add_s` (`0xFD 0x113`), and a validator without the
/// relaxed-simd feature refuses them: the numbers are the proposal's.
#[test]
fn the_detector_finds_relaxed_instructions() {
    for (sub, name) in [
        (0x107, "F64x2RelaxedMadd"),
        (0x113, "I32x4RelaxedDotI8x16I7x16AddS"),
    ] {
        let wasm = module_with(sub);
        assert_eq!(
            relaxed_ops(&wasm, 8),
            vec![name.to_string()],
            "sub-opcode {sub:#x}"
        );
        let strict = WasmFeatures::default() - WasmFeatures::RELAXED_SIMD;
        assert!(
            Validator::new_with_features(strict)
                .validate_all(&wasm)
                .is_err()
        );
        Validator::new_with_features(WasmFeatures::default())
            .validate_all(&wasm)
            .expect("valid with relaxed SIMD");
    }
}

/// The module the package carries: valid without relaxed SIMD, and none of its
/// instructions is one.
#[test]
fn the_built_module_has_no_relaxed_simd() {
    let Some(wasm) = built_module() else { return };
    let found = relaxed_ops(&wasm, 10);
    assert!(found.is_empty(), "relaxed SIMD {found:?}");
    let strict = WasmFeatures::default() - WasmFeatures::RELAXED_SIMD;
    Validator::new_with_features(strict)
        .validate_all(&wasm)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The module carries the replica's parts and none a browser does not need.
#[test]
fn the_built_module_carries_the_replica_and_nothing_else() {
    assert_eq!(
        plain(
            "<alloc[3ca501edff3f0c7c]::string::String as core[c5930c85a12de822]::fmt::Display>::fmt"
        ),
        "<alloc::string::String as core::fmt::Display>::fmt"
    );
    assert_eq!(plain("a[x]::[0]"), "a[x]::");
    let Some(wasm) = built_module() else { return };
    let names = function_names(&wasm);
    let having = |part: &str| names.iter().filter(|n| n.contains(part)).count();
    for needed in [
        "terrain_core::generator::hyperscape",
        "terrain_core::generator::voxel",
        "terrain_core::zones",
        "terrain_core::walk",
        "terrain_core::mesh",
        "terrain_client::view",
    ] {
        assert!(
            having(needed) > 0,
            "no function of {needed} among {} names",
            names.len()
        );
    }
    for unneeded in [
        "terrain_core::tiles3d",
        "gltf",
        "tonic::",
        "tokio::",
        "h2::",
        "hyper::",
        "rustls",
        "pulp::",
        "utoipa",
    ] {
        let found: Vec<_> = names
            .iter()
            .filter(|n| n.contains(unneeded))
            .take(3)
            .collect();
        assert!(found.is_empty(), "{unneeded} in the module: {found:?}");
    }
}
