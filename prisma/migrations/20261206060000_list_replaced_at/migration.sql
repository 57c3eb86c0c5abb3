-- When the plugin last wrote a whole list (PUT or an upload's commit): a shrink hold older than that was
-- replaced by the plugin's newer list, and no surface shows it as waiting for the owner (issue 44).
ALTER TABLE "role_link" ADD COLUMN "list_replaced_at" TIMESTAMP(3);
