package mcptools

// WithOutputBound is s bounded to perMinute bytes written a minute (a
// stdio server), so that a test floods past the bound in a moment.
func WithOutputBound(s Server, perMinute int) Server {
	s.perMinute = perMinute
	return s
}
