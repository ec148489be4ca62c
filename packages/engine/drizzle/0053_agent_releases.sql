CREATE TABLE "agent_releases" (
	"agent" text NOT NULL,
	"version" text NOT NULL,
	"owner" text,
	"refused_owner" text,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "agent_releases_pkey" PRIMARY KEY("agent","version"),
	CONSTRAINT "agent_releases_owner_named" CHECK ("agent_releases"."owner" ~ '^(person|team):.+'),
	CONSTRAINT "agent_releases_version_length" CHECK (char_length("agent_releases"."version") <= 128),
	CONSTRAINT "agent_releases_refused_owner_length" CHECK (char_length("agent_releases"."refused_owner") <= 200)
);
--> statement-breakpoint
CREATE INDEX "agent_releases_agent_last_seen_idx" ON "agent_releases" USING btree ("agent","last_seen_at" DESC NULLS LAST);