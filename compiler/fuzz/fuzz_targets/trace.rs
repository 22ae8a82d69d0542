#![no_main]
use ensemble_compiler::fuzz::{Target, run};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    run(Target::from_name("trace").expect("a known target"), data)
});
