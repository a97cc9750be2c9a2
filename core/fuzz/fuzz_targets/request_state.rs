#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| oxmcp::fuzzing::request_state(data));
