package memory

// The statements of a turn, for the plan tests of package memory_test.
var (
	LastMessagesSQL      = lastMessagesSQL
	SearchNeighboursSQL  = searchNeighboursSQL
	TurnUserRowSQL       = turnUserRowSQL // its last parameter: the topic, 0 for none
	TurnHistorySQL       = turnHistorySQL
	TurnAnswerSQL        = turnAnswerSQL
	VoiceRepliesSQL      = chatVoiceRepliesSQL
	TurnRecallVectorsSQL = turnRecallSQL
	TurnRankSQL          = turnRankFullTextSQL
	TurnFoundSQL         = turnFoundSQL
	GenericPlansSQL      = genericPlansSQL
)
