package memory

// The statements of a turn, for the plan tests of package memory_test.
var (
	LastMessagesSQL = lastMessagesQuery("$1", "$2")
	TurnUserRowSQL  = turnUserRowSQL
	TurnHistorySQL  = turnHistorySQL
	TurnAnswerSQL   = turnAnswerSQL
	ClaimSQL        = claimSQL
	ClaimFreeSQL    = claimFreeSQL
	TurnRecallSQL   = turnRecallSQL(false)
)
