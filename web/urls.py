from django.urls import path

from web import views

# Every page is the same document: the client (web/static/web/app.js) reads the path and draws the
# page from the API, so a reload or a shared link lands on the same page.
urlpatterns = [
    path("", views.client_page, name="web-home"),
    path("play/<int:game_id>", views.client_page, name="web-play"),
    path("replay/<int:game_id>", views.client_page, name="web-replay"),
    # An invitation to a table (a private table's code follows `#`: never sent to the server).
    path("join/<int:table_id>", views.client_page, name="web-join"),
]
