"""Chat lines say whether they came from a guest's seat (`ChatMessage.guest`). Kept lines whose
seat is still there are marked from it; a spectator's line, or one whose seat has gone, stays
unmarked (nothing left says whose it was)."""

from django.db import migrations, models


def mark_guest_lines(apps, schema_editor):
    ChatMessage = apps.get_model("games", "ChatMessage")
    ChatMessage.objects.filter(player__isnull=False, player__account__isnull=True).update(
        guest=True
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_merge_0013_daily_board_0013_ratings"),
    ]

    operations = [
        migrations.AddField(
            model_name="chatmessage",
            name="guest",
            field=models.BooleanField(
                default=False,
                help_text="Said from a guest's seat (no account): marked apart from signed-in "
                "people. Copied, as `author` is, so the mark stays when the seat goes.",
            ),
        ),
        migrations.RunPython(mark_guest_lines, migrations.RunPython.noop),
    ]
