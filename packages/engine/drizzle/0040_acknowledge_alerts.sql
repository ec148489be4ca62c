-- On call acknowledges a firing alert: who, when, why and until when.
ALTER TABLE "alert_instances" ADD COLUMN "acknowledged_by" text;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "acknowledged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "acknowledged_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "alert_instances" ADD COLUMN "acknowledgement_note" text;