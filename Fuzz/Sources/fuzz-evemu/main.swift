import FuzzSupport

// The evemu reader (and what follows it: the engine over what it accepts, the public entry).
fuzzMain { input in
    fuzzRecordingReader(.evemu, input)
}
