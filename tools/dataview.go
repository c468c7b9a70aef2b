package tools

// addDataview is a stub until this tool family is written.
func (s *Server) addDataview() {}
