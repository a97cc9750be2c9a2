//! The workspace's own `uniffi-bindgen`, built from the same `uniffi` version as the
//! library, so the generated Kotlin and Swift always match the scaffolding.
//!
//! `cargo run -p oxmcp-ffi --bin uniffi-bindgen -- generate --library target/debug/liboxmcp_ffi.so \
//!  --language kotlin --language swift --out-dir target/uniffi`

fn main() {
    uniffi::uniffi_bindgen_main()
}
