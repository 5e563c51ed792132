from django.contrib.auth import views as auth
from django.urls import path

from . import views

urlpatterns = [
    path("accounts/", views.account, name="account"),
    path("accounts/signup/", views.signup, name="signup"),
    path(
        "accounts/login/",
        auth.LoginView.as_view(
            template_name="players/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("accounts/logout/", auth.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth.PasswordChangeView.as_view(template_name="players/password.html"),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth.PasswordChangeDoneView.as_view(template_name="players/password_done.html"),
        name="password_change_done",
    ),
    path("accounts/tokens/", views.new_token, name="new_token"),
    path("accounts/tokens/<int:token_id>/revoke/", views.revoke_token, name="revoke_token"),
]
