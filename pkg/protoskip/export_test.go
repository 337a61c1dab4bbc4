package protoskip

// Fixtures and helpers for the external tests (readers_test.go).
var (
	FixturePod         = fixturePod
	FixtureList        = fixtureList
	ProtobufSerializer = protobufSerializer
	Encode             = encode
)
