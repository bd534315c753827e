UPDATE messages SET forgotten = true WHERE id = ANY($1::bigint[]) AND NOT forgotten
