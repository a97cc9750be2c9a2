#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oxmcp::fuzzing::stdio_codec(data));
