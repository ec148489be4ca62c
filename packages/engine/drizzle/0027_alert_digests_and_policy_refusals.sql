ALTER TABLE "alert_delivery_attempts" ADD COLUMN "refused_by_policy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "members" text[];