// Readers for recorded event streams; see RecordingReader.
