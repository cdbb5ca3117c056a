"""A metric card's figure is never cut off: a million GPUs' '1,048,576' in the narrowest card."""

from __future__ import annotations

from designer.ui.panels.metrics_panel import VALUE_POINT_SIZES, MetricCard, MetricsPanel


def _shown_width(card: MetricCard) -> int:
    return card.value.sizeHint().width()


def test_a_long_figure_shrinks_to_the_card_and_a_short_one_keeps_its_size(qtbot):
    panel = MetricsPanel()          # its style sheet sets the figures' size
    qtbot.addWidget(panel)
    card = MetricCard("GPUs", "")
    panel.layout().addWidget(card)
    card.setFixedWidth(112)         # a card's minimum, as six share a 1280-pixel window
    panel.show()
    qtbot.waitExposed(panel)
    card.show_value("1,048,576")
    room = card.contentsRect().width() - 16
    assert _shown_width(card) <= room
    assert card.value.text() == "1,048,576"                     # the figure itself, drawn smaller
    assert card.value.property("fit") != "0"
    assert card.value.font().pointSizeF() < VALUE_POINT_SIZES[0]
    card.show_value("512")
    assert card.value.property("fit") == "0"                    # the style sheet's size
    assert card.value.font().pointSizeF() == VALUE_POINT_SIZES[0]
    card.show_value("419.43 Pb/s")
    assert _shown_width(card) <= room and "Pb/s" in card.value.text()
    # Wider again, the figure takes its full size back.
    card.setFixedWidth(260)
    card.show_value("1,048,576")
    assert card.value.property("fit") == "0"
